// Fuzzes the server's parser of client messages (proto/parse.cpp) with arbitrary bytes, as one
// line of the TCP transport or one WebSocket text frame would bring them.
// Checks: no crash, no uncaught exception; an error has a message and serializes (what the
// server sends back); a parsed message serializes to JSON that parses into the same message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "proto/messages.h"
#include "tests/fuzz/fuzz_check.h"

using namespace tf::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = parse_client(text);
    if (auto* e = std::get_if<Error>(&parsed)) {
        TF_FUZZ_CHECK(!e->message.empty());
        TF_FUZZ_CHECK(!err_name(e->code).empty());
        (void)to_text(ErrorMsg{e->code, e->message, {}, {}, {}});
        return 0;
    }
    const ClientMsg& msg = std::get<ClientMsg>(parsed);
    Json j = to_json(msg);
    std::string again_text = j.dump();
    auto again = parse_client(std::string_view(again_text));
    TF_FUZZ_CHECK(std::holds_alternative<ClientMsg>(again));
    TF_FUZZ_CHECK(std::get<ClientMsg>(again).index() == msg.index());
    TF_FUZZ_CHECK(to_json(std::get<ClientMsg>(again)) == j);
    return 0;
}
