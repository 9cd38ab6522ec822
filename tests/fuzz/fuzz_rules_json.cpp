// Fuzzes the rules library's JSON readers (common/json.h, common/record.h) and the turn notation
// (common/notation.h) with arbitrary bytes. The input is parsed as JSON; every reader runs on the
// value and on each of its members (so a record-shaped input reaches the setup and turn readers
// too); the raw text is also read as turn notation.
// Checks: no crash, no uncaught exception; whatever reads back prints and reads again to the same
// value; a game read from a state is consistent (Game::is_ok), prints the same state again, and
// its move generator agrees with its validator; a replayed record's legal part replays again to
// the same state.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/notation.h"
#include "common/record.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/rules_checks.h"

using namespace tf;
using namespace tf::fuzz;

namespace {

void read_value(const Json& j) {
    if (auto v = variant_from_json(j)) {
        TF_FUZZ_CHECK(!check_variant(*v));
        auto back = variant_from_json(to_json(*v));
        TF_FUZZ_CHECK(back && *back == *v);
    }
    if (auto s = setup_from_json(j)) {
        auto back = setup_from_json(to_json(*s));
        TF_FUZZ_CHECK(back && *back == *s);
    }
    if (auto t = turn_from_json(j)) {
        check_turn_prints(*t, Variant{});
    }
    if (auto c = cell_from_json(j, "cell")) {
        auto back = cell_from_json(to_json(*c), "cell");
        TF_FUZZ_CHECK(back && *back == *c);
    } else {
        TF_FUZZ_CHECK(!c.error().message.empty());
    }
    if (auto g = game_from_json(j)) {
        check_representable(*g);
        (void)moves_to_json(*g).dump();
        (void)result_to_json(*g).dump();
        check_generator_agrees(*g);
    }
}

void replay(const Json& j) {
    auto r = replay_record(j);
    if (!r) {
        TF_FUZZ_CHECK(!r.error().message.empty());
        return;
    }
    TF_FUZZ_CHECK(r->game.is_ok());
    (void)replay_summary(*r).dump();
    if (r->error_setup) return;  // the record holds no complete setup to replay
    auto again = replay_record(to_json(r->record));
    TF_FUZZ_CHECK(again);
    TF_FUZZ_CHECK(!again->error);
    TF_FUZZ_CHECK(again->applied == r->applied);
    TF_FUZZ_CHECK(state_to_json(again->game) == state_to_json(r->game));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto t = turn_from_notation(text, Variant{}.size)) check_turn_prints(*t, Variant{});

    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    read_value(j);
    replay(j);
    if (j.is_object() || j.is_array()) {
        for (const Json& member : j) read_value(member);
        if (j.is_object() && j.contains("record")) replay(j["record"]);  // a conformance case
    }
    return 0;
}
