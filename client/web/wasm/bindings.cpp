// The rules library as a C API for the WebAssembly build (see trunkfield-rules.js for the JS API).
//
// Strings cross the boundary as UTF-8 JSON:
// - In: `const char*` the caller owns (the JS wrapper mallocs, calls, frees), only read during
//   the call.
// - Out: a pointer into one static buffer owned here, valid until the next call into this API.
//   The module is single-threaded and the JS side copies the text at once (UTF8ToString), so
//   nothing returned ever needs freeing and nothing can leak when a caller forgets to.
//
// Games live in a table of handles (int > 0); 0 is never a handle. Functions that make a game
// return its handle or 0, and then tf_last_error() tells why as {"code", "message"}.
// Functions that act on a game return "null" on success or {"code", "message"}; functions that
// read return their JSON, or "null" with tf_last_error() set when the handle is unknown.
//
// Nothing throws across the boundary: JSON is parsed without exceptions (is_discarded), output
// is dumped with invalid UTF-8 replaced, and every entry point also catches anything else
// (compiled with -fexceptions) and reports it as {"code": "internal", ...}.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/analysis.h"
#include "common/bot.h"
#include "common/error.h"
#include "common/json.h"
#include "common/notation.h"
#include "common/position.h"
#include "common/record.h"
#include "common/variations.h"

namespace {

using tf::Json;

std::string g_out;                  // the returned text, see above
std::string g_last_error = "null";  // {"code", "message"} of the last failure, or null
std::map<int, std::unique_ptr<tf::Game>> g_games;
int g_next_handle = 1;
// Game analyses (tf_analyser_*) in a table of their own: a game handle is never an analyser's.
std::map<int, std::unique_ptr<tf::Analyser>> g_analysers;
int g_next_analyser = 1;

// Codes of the bindings themselves, beyond tf::ErrorCode.
constexpr const char* kBadHandle = "bad_handle";
constexpr const char* kInternal = "internal";

std::string dump(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

const char* out_text(std::string s) {
    g_out = std::move(s);
    return g_out.c_str();
}
const char* out(const Json& j) {
    return out_text(dump(j));
}

Json error_json(std::string_view code, const std::string& message) {
    return Json{{"code", code}, {"message", message}};
}
Json error_json(const tf::RuleError& e) {
    return error_json(tf::error_code_name(e.code), e.message);
}

// Parses untrusted text without exceptions; on failure sets `err` to a bad_format error.
std::optional<Json> parse(const char* text, const char* what, Json& err) {
    if (!text) {
        err = error_json("bad_format", std::string(what) + ": missing");
        return std::nullopt;
    }
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
        err = error_json("bad_format", std::string(what) + ": not valid JSON");
        return std::nullopt;
    }
    return j;
}

// The object behind `handle` in `table`, or nullptr with tf_last_error() set ("no game with
// handle 7").
template <class T>
T* find_in(std::map<int, std::unique_ptr<T>>& table, int handle, const char* what) {
    auto it = table.find(handle);
    if (it == table.end()) {
        g_last_error = dump(error_json(
            kBadHandle, std::string("no ") + what + " with handle " + std::to_string(handle)));
        return nullptr;
    }
    return it->second.get();
}

// Stores `v` under a new handle of `table` (`next` is that table's counter) and returns it.
template <class T>
int add_to(std::map<int, std::unique_ptr<T>>& table, int& next, T v) {
    if (next == 0x7fffffff) next = 1;  // never reached in practice
    const int h = next++;
    table[h] = std::make_unique<T>(std::move(v));
    g_last_error = "null";
    return h;
}

tf::Game* find(int handle) {
    return find_in(g_games, handle, "game");
}

int add_game(tf::Game g) {
    return add_to(g_games, g_next_handle, std::move(g));
}

tf::Analyser* find_analyser(int handle) {
    return find_in(g_analysers, handle, "analyser");
}

// {"done", "total"}: the positions an analyser has evaluated, of all.
Json progress_json(const tf::Analyser& a) {
    return Json{{"done", a.done()}, {"total", a.total()}};
}

int fail_handle(const Json& err) {
    g_last_error = dump(err);
    return 0;
}

// Runs `f` and turns any exception into an internal error: `on_error(json)` builds the result.
template <class F, class OnError>
auto guarded(F&& f, OnError&& on_error) -> decltype(f()) {
    try {
        return f();
    } catch (const std::exception& e) {
        return on_error(error_json(kInternal, std::string("unexpected error: ") + e.what()));
    } catch (...) {
        return on_error(error_json(kInternal, "unexpected error"));
    }
}

const char* guarded_text(auto&& f) {
    return guarded(f, [](const Json& err) { return out(err); });
}
int guarded_handle(auto&& f) {
    return guarded(f, [](const Json& err) { return fail_handle(err); });
}

// The null-or-error result of an action.
const char* action_result(const std::optional<tf::RuleError>& e) {
    return out_text(e ? dump(error_json(*e)) : std::string("null"));
}

// Parses a turn and applies it to `g`.
const char* apply_turn_to(tf::Game& g, const char* turn_json) {
    Json err;
    auto j = parse(turn_json, "turn", err);
    if (!j) return out(err);
    auto t = tf::turn_from_json(*j);
    if (!t) return action_result(t.error());
    return action_result(g.apply_turn(*t));
}

Json bad_size(int size) {
    return error_json("bad_variant", "size " + std::to_string(size) + " is not " +
                                         std::to_string(tf::kMinSize) + " to " +
                                         std::to_string(tf::kMaxSize));
}

}  // namespace

extern "C" {

// {"code", "message"} of the last failed handle-returning call or unknown handle, or "null".
EMSCRIPTEN_KEEPALIVE const char* tf_last_error() {
    return out_text(g_last_error);
}

// A new game in its setup phase. `variant_json` is a variant object (or null for the default).
EMSCRIPTEN_KEEPALIVE int tf_game_new(const char* variant_json) {
    return guarded_handle([&]() -> int {
        Json err;
        auto j = parse(variant_json, "variant", err);
        if (!j) return fail_handle(err);
        auto v = tf::variant_from_json(*j);
        if (!v) return fail_handle(error_json(v.error()));
        return add_game(tf::Game(*v));
    });
}

// A game rebuilt from tf::state_to_json output (tf::game_from_json).
EMSCRIPTEN_KEEPALIVE int tf_game_load(const char* state_json) {
    return guarded_handle([&]() -> int {
        Json err;
        auto j = parse(state_json, "state", err);
        if (!j) return fail_handle(err);
        auto g = tf::game_from_json(*j);
        if (!g) return fail_handle(error_json(g.error()));
        return add_game(std::move(*g));
    });
}

// An independent copy of a game (for previews and undo).
EMSCRIPTEN_KEEPALIVE int tf_game_clone(int handle) {
    return guarded_handle([&]() -> int {
        const tf::Game* g = find(handle);
        if (!g) return 0;
        return add_game(*g);
    });
}

EMSCRIPTEN_KEEPALIVE void tf_game_free(int handle) {
    g_games.erase(handle);
}

// Applies a side's setup: "null" or {"code", "message"}.
EMSCRIPTEN_KEEPALIVE const char* tf_game_apply_setup(int handle, const char* side,
                                                     const char* setup_json) {
    return guarded_text([&]() -> const char* {
        tf::Game* g = find(handle);
        if (!g) return out_text(g_last_error);
        auto s = tf::parse_side(side ? std::string_view(side) : std::string_view());
        if (!s) return out(error_json("bad_format", "side: expected \"silver\" or \"bronze\""));
        Json err;
        auto j = parse(setup_json, "setup", err);
        if (!j) return out(err);
        auto setup = tf::setup_from_json(*j);
        if (!setup) return action_result(setup.error());
        return action_result(g->apply_setup(*s, *setup));
    });
}

// Applies a turn: "null" or {"code", "message"}; on error the game is unchanged.
EMSCRIPTEN_KEEPALIVE const char* tf_game_apply_turn(int handle, const char* turn_json) {
    return guarded_text([&]() -> const char* {
        tf::Game* g = find(handle);
        if (!g) return out_text(g_last_error);
        return apply_turn_to(*g, turn_json);
    });
}

// Whether a turn would apply, without applying it: "null" or {"code", "message"}.
EMSCRIPTEN_KEEPALIVE const char* tf_game_check_turn(int handle, const char* turn_json) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text(g_last_error);
        tf::Game copy = *g;
        return apply_turn_to(copy, turn_json);
    });
}

// Every legal elephant move of the side to move (tf::moves_to_json); [] outside of play.
EMSCRIPTEN_KEEPALIVE const char* tf_game_legal_moves(int handle) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text("null");
        return out(tf::moves_to_json(*g));
    });
}

// The whole visible state (tf::state_to_json).
EMSCRIPTEN_KEEPALIVE const char* tf_game_state(int handle) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text("null");
        return out(tf::state_to_json(*g));
    });
}

// Ends the game outside the rules: `loser` resigns ("null" or {"code", "message"}).
EMSCRIPTEN_KEEPALIVE const char* tf_game_resign(int handle, const char* loser) {
    return guarded_text([&]() -> const char* {
        tf::Game* g = find(handle);
        if (!g) return out_text(g_last_error);
        auto s = tf::parse_side(loser ? std::string_view(loser) : std::string_view());
        if (!s) return out(error_json("bad_format", "side: expected \"silver\" or \"bronze\""));
        if (g->over()) return out(error_json("game_over", "the game is over"));
        g->resign(*s);
        return out_text("null");
    });
}

// Ends the game outside the rules: a draw agreed ("null" or {"code", "message"}).
EMSCRIPTEN_KEEPALIVE const char* tf_game_agree_draw(int handle) {
    return guarded_text([&]() -> const char* {
        tf::Game* g = find(handle);
        if (!g) return out_text(g_last_error);
        if (g->over()) return out(error_json("game_over", "the game is over"));
        g->agree_draw();
        return out_text("null");
    });
}

// The computer opponent's move (common/bot.h) for the side to move: {"setup": {...}} in a setup
// phase, {"turn": {...}} in play, or {"error": {"code", "message"}} (over, level outside 1..5,
// unknown handle). `seed` is a double because it comes from a JS number; the same game, level
// and seed give the same move, as on the server.
EMSCRIPTEN_KEEPALIVE const char* tf_game_bot_move(int handle, int level, double seed) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text("{\"error\":" + g_last_error + "}");
        tf::BotOptions opt;
        opt.level = level;
        // A negative, NaN or huge seed would make the conversion undefined behaviour.
        opt.seed = seed >= 0 && seed < 18446744073709551616.0 ? std::uint64_t(seed) : 1;
        if (g->phase() == tf::Phase::SetupSilver || g->phase() == tf::Phase::SetupBronze) {
            auto s = tf::bot_setup(*g, opt);
            if (!s) return out(Json{{"error", error_json(s.error())}});
            return out(Json{{"setup", tf::to_json(*s)}});
        }
        auto t = tf::bot_turn(*g, opt);
        if (!t) return out(Json{{"error", error_json(t.error())}});
        return out(Json{{"turn", tf::to_json(*t)}});
    });
}

// Replays a record: tf::replay_summary plus "moves" (the legal elephant moves of the final
// position), or {"error": {"code", "message"}} with no "applied" when the input is not a record.
EMSCRIPTEN_KEEPALIVE const char* tf_replay(const char* record_json) {
    return guarded_text([&]() -> const char* {
        Json err;
        auto j = parse(record_json, "record", err);
        if (!j) return out(Json{{"error", err}});
        auto r = tf::replay_record(*j);
        if (!r) return out(Json{{"error", error_json(r.error())}});
        Json summary = tf::replay_summary(*r);
        summary["moves"] = tf::moves_to_json(r->game);
        return out(summary);
    });
}

// {"notation": "c1-c2:N"} or {"error": {"code", "message"}} for a turn on a size x size field.
EMSCRIPTEN_KEEPALIVE const char* tf_turn_to_notation(const char* turn_json, int size) {
    return guarded_text([&]() -> const char* {
        if (size < tf::kMinSize || size > tf::kMaxSize) return out(Json{{"error", bad_size(size)}});
        Json err;
        auto j = parse(turn_json, "turn", err);
        if (!j) return out(Json{{"error", err}});
        auto t = tf::turn_from_json(*j);
        if (!t) return out(Json{{"error", error_json(t.error())}});
        return out(Json{{"notation", tf::turn_to_notation(*t, size)}});
    });
}

// {"turn": {...canonical turn...}} or {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_turn_from_notation(const char* text, int size) {
    return guarded_text([&]() -> const char* {
        if (size < tf::kMinSize || size > tf::kMaxSize) return out(Json{{"error", bad_size(size)}});
        auto t = tf::turn_from_notation(text ? std::string_view(text) : std::string_view(), size);
        if (!t) return out(Json{{"error", error_json(t.error())}});
        return out(Json{{"turn", tf::to_json(*t)}});
    });
}

// A game analysis of a record (common/analysis.h) with `nodes` per position (0: the default),
// evaluated one position per tf_analyser_step: its handle, or 0 with tf_last_error() set (not
// a record, an illegal setup or turn, nodes out of range). `nodes` is a double because it
// comes from a JS number.
EMSCRIPTEN_KEEPALIVE int tf_analyser_new(const char* record_json, double nodes) {
    return guarded_handle([&]() -> int {
        Json err;
        auto j = parse(record_json, "record", err);
        if (!j) return fail_handle(err);
        // The CLI's bounds (`trunkfield analyse --nodes`); a NaN fails both comparisons.
        if (nodes != 0 &&
            !(nodes >= double(tf::kMinAnalysisNodes) && nodes <= double(tf::kMaxAnalysisNodes)))
            return fail_handle(error_json(
                "bad_format", "nodes: not 0 or " + std::to_string(tf::kMinAnalysisNodes) + " to " +
                                  std::to_string(tf::kMaxAnalysisNodes)));
        const std::uint64_t budget = nodes == 0 ? tf::kAnalysisNodes : std::uint64_t(nodes);
        auto a = tf::Analyser::create(*j, budget);
        if (!a) return fail_handle(error_json(a.error()));
        return add_to(g_analysers, g_next_analyser, std::move(*a));
    });
}

// Evaluates the next position: {"done", "total"} (positions), or {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_analyser_step(int handle) {
    return guarded_text([&]() -> const char* {
        tf::Analyser* a = find_analyser(handle);
        if (!a) return out_text("{\"error\":" + g_last_error + "}");
        a->step();
        return out(progress_json(*a));
    });
}

// {"done", "total"} without evaluating anything, or {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_analyser_progress(int handle) {
    return guarded_text([&]() -> const char* {
        const tf::Analyser* a = find_analyser(handle);
        if (!a) return out_text("{\"error\":" + g_last_error + "}");
        return out(progress_json(*a));
    });
}

// The analysis (tf::to_json of common/analysis.h) once every position is evaluated, else
// {"error": {"code": "not_finished", ...}}.
EMSCRIPTEN_KEEPALIVE const char* tf_analyser_result(int handle) {
    return guarded_text([&]() -> const char* {
        const tf::Analyser* a = find_analyser(handle);
        if (!a) return out_text("{\"error\":" + g_last_error + "}");
        if (!a->finished())
            return out(
                Json{{"error", error_json("not_finished", std::to_string(a->done()) + " of " +
                                                              std::to_string(a->total()) +
                                                              " positions evaluated")}});
        return out(tf::to_json(a->result()));
    });
}

EMSCRIPTEN_KEEPALIVE void tf_analyser_free(int handle) {
    g_analysers.erase(handle);
}

// A game from a position string (common/position.h): its handle, or 0 with tf_last_error() set.
EMSCRIPTEN_KEEPALIVE int tf_game_from_position(const char* text) {
    return guarded_handle([&]() -> int {
        auto g = tf::game_from_position(text ? std::string_view(text) : std::string_view());
        if (!g) return fail_handle(error_json(g.error()));
        return add_game(std::move(*g));
    });
}

// {"position": "..."}, {"position": null} during the setups, or {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_game_position(int handle) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text("{\"error\":" + g_last_error + "}");
        auto p = tf::position_string(*g);
        return out(Json{{"position", p ? Json(*p) : Json(nullptr)}});
    });
}

// The engine on one position (common/analysis.h analyse_position): {"eval", "win", "forced",
// "best", "line"} with `nodes` for the first search (kMinAnalysisNodes..kMaxAnalysisNodes) and a
// line of up to `length` (1..20) turns, or {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_game_analyse(int handle, double nodes, int length) {
    return guarded_text([&]() -> const char* {
        const tf::Game* g = find(handle);
        if (!g) return out_text("{\"error\":" + g_last_error + "}");
        if (!(nodes >= double(tf::kMinAnalysisNodes) && nodes <= double(tf::kMaxAnalysisNodes)) ||
            length < 1 || length > 20)
            return out(
                Json{{"error", error_json("bad_format", "nodes or line length out of range")}});
        if (g->phase() == tf::Phase::SetupSilver || g->phase() == tf::Phase::SetupBronze)
            return out(Json{{"error", error_json("wrong_phase", "no analysis during the setups")}});
        return out(tf::to_json(tf::analyse_position(*g, std::uint64_t(nodes), length)));
    });
}

// A record with variations (common/variations.h) read from its text: the tree as JSON, or
// {"error": {"code", "message"}}.
EMSCRIPTEN_KEEPALIVE const char* tf_variations_parse(const char* text) {
    return guarded_text([&]() -> const char* {
        auto t = tf::parse_variations(text ? std::string_view(text) : std::string_view());
        if (!t) return out(Json{{"error", error_json(t.error())}});
        return out(tf::to_json(*t));
    });
}

// The text of a tree given as JSON (checked turn by turn): {"text": "..."} or {"error": ...}.
EMSCRIPTEN_KEEPALIVE const char* tf_variations_print(const char* tree_json) {
    return guarded_text([&]() -> const char* {
        Json err;
        auto j = parse(tree_json, "tree", err);
        if (!j) return out(Json{{"error", err}});
        auto t = tf::variations_from_json(*j);
        if (!t) return out(Json{{"error", error_json(t.error())}});
        return out(Json{{"text", tf::print_variations(*t)}});
    });
}

}  // extern "C"
