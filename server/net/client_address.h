// Who a client is when a proxy stands between it and the server. Only the proxies named by
// --trusted-proxies are believed: from them, the X-Forwarded-For header of an HTTP request (and
// so of a WebSocket upgrade) and the PROXY protocol header of a raw TCP connection (HAProxy's
// `send-proxy-v2`, or v1's text line) name the client; from anyone else both are ignored and the
// peer is the client. Pure: addresses and bytes in, an address out (unit-tested and fuzzed).
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tf::server {

class TrustedProxies {
  public:
    // Entries are addresses or CIDR blocks ("10.0.0.0/8", "192.0.2.7", "::1", "fd00::/8").
    // nullopt, with `error` naming the entry, when one is not.
    static std::optional<TrustedProxies> parse(const std::vector<std::string>& entries,
                                               std::string& error);
    // An IPv4-mapped IPv6 address matches as its IPv4 address.
    bool contains(const boost::asio::ip::address& a) const;
    bool empty() const { return nets_.empty(); }

  private:
    struct Net {
        boost::asio::ip::address base;
        int prefix;
    };
    std::vector<Net> nets_;
};

// The client of a request from `peer` carrying `forwarded_for` (the X-Forwarded-For values,
// comma-separated, several headers joined with ","): `peer` unless it is a trusted proxy; else
// the list is read from the right (each proxy appends the address it saw) and the first address
// that is not a trusted proxy is the client (the leftmost when all are). An entry that is not an
// address ends the walk: the last address read (a trusted proxy) is then the client.
boost::asio::ip::address forwarded_client(const boost::asio::ip::address& peer,
                                          std::string_view forwarded_for,
                                          const TrustedProxies& trusted);

// The PROXY protocol header at the start of a TCP stream (haproxy.org proxy-protocol.txt).
struct ProxyHeader {
    enum class Status {
        NeedMore,  // a header has begun (or might have): more bytes are needed
        NotProxy,  // the stream does not start with a header
        Bad,       // a header that is malformed or too long
        Done,      // a header of `length` bytes
    };
    Status status = Status::NeedMore;
    std::size_t length = 0;
    // Done: the client's address; none for a LOCAL command (the proxy's own health check) or an
    // UNKNOWN / non-IP family: the connection is then the proxy's own.
    std::optional<boost::asio::ip::address> source;
    std::string why;  // Bad: what is wrong
};
// Parses a v2 (binary) or v1 (text) header from the first bytes of a stream.
ProxyHeader parse_proxy_header(std::string_view bytes);

// The bytes of a v2 header saying `source` connected (tests, benchmarks, fuzz seeds).
std::string proxy_v2_header(const boost::asio::ip::address& source, unsigned short port);

}  // namespace tf::server
