// Fuzzes who a client is behind a proxy (server/net/client_address.h): the PROXY protocol header at
// the start of a TCP stream (v2 binary, v1 text) and the X-Forwarded-For walk, on bytes of an
// attacker's choosing (a trusted proxy passes a client's X-Forwarded-For entries on).
// Checks: a header found is within the input, parses the same alone, and every shorter prefix of
// it asks for more; "more" is only asked while a header may still fit its limits; the client of
// X-Forwarded-For is the peer, or an address of the list.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/net/client_address.h"
#include "tests/fuzz/fuzz_check.h"

using namespace tf::server;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const ProxyHeader h = parse_proxy_header(in);
    if (h.status == ProxyHeader::Status::Done) {
        TF_FUZZ_CHECK(h.length > 0 && h.length <= in.size());
        const ProxyHeader alone = parse_proxy_header(in.substr(0, h.length));
        TF_FUZZ_CHECK(alone.status == ProxyHeader::Status::Done);
        TF_FUZZ_CHECK(alone.length == h.length && alone.source == h.source);
        for (std::size_t n : {std::size_t(0), h.length / 2, h.length - 1})
            TF_FUZZ_CHECK(parse_proxy_header(in.substr(0, n)).status ==
                          ProxyHeader::Status::NeedMore);
    }
    if (h.status == ProxyHeader::Status::NeedMore) TF_FUZZ_CHECK(in.size() < 16 + 1024);
    if (h.status == ProxyHeader::Status::Bad) TF_FUZZ_CHECK(!h.why.empty());

    static const TrustedProxies trusted = [] {
        std::string error;
        return *TrustedProxies::parse({"127.0.0.1", "10.0.0.0/8", "::1"}, error);
    }();
    const auto peer = boost::asio::ip::make_address("127.0.0.1");
    const auto client = forwarded_client(peer, in, trusted);
    TF_FUZZ_CHECK(client == peer || in.find(client.to_string()) != std::string_view::npos ||
                  client.is_v6());  // an IPv6 entry may be written another way than to_string
    return 0;
}
