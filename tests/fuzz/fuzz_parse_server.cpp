// Fuzzes the clients' parser of server messages (proto/parse_server.cpp) and the game mirror
// behind it (client/lib/game_mirror.cpp) with arbitrary bytes, as one received line or frame.
// Checks: no crash, no uncaught exception; an error has a message; a parsed message serializes
// (to_text) to text that parses into a message that serializes to the same text; the mirror
// takes any sequence of parsed messages and stays consistent (its version never decreases,
// its game passes Game::is_ok()).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "client/lib/game_mirror.h"
#include "proto/messages.h"
#include "tests/fuzz/fuzz_check.h"

using namespace tf::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view all(reinterpret_cast<const char*>(data), size);
    tf::client::GameMirror mirror("p1");
    // One message per line, so that a mirror sees a snapshot and then events.
    while (!all.empty()) {
        auto nl = all.find('\n');
        std::string_view text = all.substr(0, nl);
        all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
        auto parsed = parse_server(text);
        if (auto* e = std::get_if<Error>(&parsed)) {
            TF_FUZZ_CHECK(!e->message.empty());
            continue;
        }
        const ServerMsg& msg = std::get<ServerMsg>(parsed);
        std::string out = to_text(msg);
        auto again = parse_server(std::string_view(out));
        TF_FUZZ_CHECK(std::holds_alternative<ServerMsg>(again));
        TF_FUZZ_CHECK(std::get<ServerMsg>(again).index() == msg.index());
        TF_FUZZ_CHECK(to_text(std::get<ServerMsg>(again)) == out);
        const std::int64_t before = mirror.version();
        auto u = mirror.apply(msg);
        if (u != tf::client::GameMirror::Update::Snapshot)
            TF_FUZZ_CHECK(mirror.version() >= before);
        TF_FUZZ_CHECK(mirror.game().is_ok());
    }
    return 0;
}
