#include "server/web/puzzle_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "common/analysis.h"
#include "common/bot.h"
#include "common/json.h"
#include "common/position.h"
#include "common/puzzles.h"
#include "proto/messages.h"
#include "server/accounts/ratings.h"
#include "server/base/time.h"
#include "server/puzzles/puzzle_service.h"

namespace tf::server {

using nlohmann::json;

namespace {

ApiResponse error(unsigned status, const char* code, std::string message) {
    return api_error(status, code, std::move(message));
}
ApiResponse ok(const json& j) {
    return {200, "application/json", j.dump() + "\n", {}};
}

std::string utc_day(std::int64_t ms) {
    return iso8601(ms).substr(0, 10);
}

bool puzzle_id(std::string_view s) {
    if (s.size() != 8) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

json rating_json(const StoredRating& r) {
    return {{"rating", r.rating},
            {"deviation", r.deviation},
            {"volatility", r.volatility},
            {"games", r.games},
            {"last_at", r.last_ms}};
}

// A puzzle as readers see it: never its line.
json view(const StoredPuzzle& p, bool tried) {
    std::istringstream fields(p.position);
    std::string size, board, side;
    fields >> size >> board >> side;
    return {{"id", p.id},
            {"position", p.position},
            {"solver", side == "b" ? "bronze" : "silver"},
            {"solver_turns", p.solver_turns},
            {"themes", p.themes},
            {"rating", std::lround(p.rating.rating)},
            {"deviation", std::lround(p.rating.deviation)},
            {"plays", p.plays},
            {"solved", p.solved},
            {"source",
             {{"game", p.source_game.empty() ? json(nullptr) : json(p.source_game)},
              {"turn", p.source_turn}}},
            {"tried", tried}};
}

bool known_theme(const std::string& t) {
    for (const auto& x : puzzle_themes())
        if (x == t) return true;
    return false;
}

ApiResponse illegal(const RuleError& e, int turn, int of) {
    json j = {{"error", "illegal_turn"},
              {"message", e.message},
              {"rule", std::string(error_code_name(e.code))}};
    if (of > 1) j["turn"] = turn;
    return {400, "application/json", j.dump() + "\n", {}};
}

// The solver's turns of an answer's body, checked for shape (the rules judge them later), or
// the error to answer.
std::variant<std::vector<Turn>, ApiResponse> turns_of(const std::string& body) {
    json j = json::parse(body, nullptr, false);
    if (j.is_discarded()) return error(400, "bad_request", "the body is not JSON");
    if (!j.is_object() || !j.contains("turns") || !j["turns"].is_array())
        return error(400, "bad_request", "the body must be {\"turns\": [turn, ...]}");
    if (j["turns"].empty()) return error(400, "bad_request", "no turn to judge");
    std::vector<Turn> out;
    for (const auto& t : j["turns"]) {
        auto turn = turn_from_json(t);
        if (!turn) return illegal(turn.error(), int(out.size()) + 1, int(j["turns"].size()));
        out.push_back(*turn);
    }
    return out;
}

ApiResponse answer(PuzzleDb& db, const std::string& id, const std::vector<Turn>& turns,
                   const PuzzleReader& reader) {
    auto stored = db.get(id);
    if (!stored) return error(404, "not_found", "no puzzle " + id);
    auto puzzle = puzzle_from_json(json::parse(stored->body));
    if (!puzzle)
        throw std::runtime_error("puzzle " + id + " is unreadable: " + puzzle.error().message);
    const int n = int(turns.size());
    if (n > stored->solver_turns)
        return error(400, "bad_request",
                     "this puzzle's line has " + std::to_string(stored->solver_turns) +
                         " turn(s) of the solver; the answer has " + std::to_string(n));
    Answer verdict = Answer::Correct;
    for (int k = 0; k < n; ++k) {
        auto v = judge_answer(*puzzle, 2 * k, turns[std::size_t(k)]);
        if (!v) return illegal(v.error(), k + 1, n);
        if (k + 1 < n && *v != Answer::Correct)
            return error(400, "bad_request",
                         "turn " + std::to_string(k + 1) +
                             " ended the attempt already: send no turn after it");
        verdict = *v;
    }
    const bool done = verdict != Answer::Correct || n == stored->solver_turns;
    const bool solved = done && verdict != Answer::Wrong;
    json out = {{"id", id},
                {"verdict", verdict == Answer::Correct ? "correct"
                            : verdict == Answer::Also  ? "also"
                                                       : "wrong"},
                {"reply", done ? json(nullptr) : to_json(puzzle->line[std::size_t(2 * n - 1)])},
                {"done", done},
                {"solved", solved}};
    if (!done) return ok(out);
    json line = json::array();
    for (const auto& t : puzzle->line) line.push_back(to_json(t));
    out["line"] = line;
    if (verdict == Answer::Wrong) {
        // What the wrong turn allows: the engine's best answer to it (as lichess shows).
        Game g = *game_from_position(puzzle->position);
        for (int i = 0; i < 2 * (n - 1); ++i) g.apply_turn(puzzle->line[std::size_t(i)]);
        g.apply_turn(turns.back());
        json refutation = nullptr;
        if (!g.over())
            if (auto r = bot_turn(g, analysis_engine(kAnalysisNodes))) refutation = to_json(*r);
        out["refutation"] = refutation;
    }
    out["rated"] = false;
    if (!reader.player_id.empty()) {
        const std::int64_t now = epoch_ms();
        AttemptOutcome o =
            db.attempt({reader.player_id, id, solved, reader.account, now}, rate_puzzle);
        out["at"] = now;
        if (o.rated) {
            out["rated"] = true;
            out["rating"] = {{"before", rating_json(o.player_before)},
                             {"after", rating_json(o.player_after)}};
            out["puzzle_rating"] = {{"before", rating_json(o.puzzle_before)},
                                    {"after", rating_json(o.puzzle_after)}};
        }
    }
    return ok(out);
}

using Job = std::function<ApiResponse(PuzzleDb&)>;

void run(PuzzleService& svc, Job job, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto then = [done](Read<ApiResponse> r) {
        if (r.ok()) return done(std::move(*r.value));
        spdlog::warn("puzzle API: {}", r.error);
        done(error(503, "store_unavailable", "the puzzles cannot be read now: " + r.error));
    };
    if (!svc.run<ApiResponse>(std::move(job), ex, then))
        boost::asio::post(ex, [done] {
            done(error(429, "busy", "the puzzle judge has too much to do; try again shortly"));
        });
}

}  // namespace

bool is_puzzle_target(std::string_view target) {
    auto path = target.substr(0, target.find('?'));
    return path == "/api/puzzles" || path.rfind("/api/puzzles/", 0) == 0;
}

void puzzle_api(PuzzleService* svc, bool post, std::string_view target, std::string body,
                PuzzleReader reader, Store::Executor ex, std::function<void(ApiResponse)> done) {
    auto reply = [&](ApiResponse r) { boost::asio::post(ex, [done, r] { done(r); }); };
    const auto qpos = target.find('?');
    const std::string path(target.substr(0, qpos));
    auto query = strict_query(qpos == std::string_view::npos ? "" : target.substr(qpos + 1));
    if (!query) return reply(error(400, "bad_request", "a malformed query string"));
    const std::string rest = path.size() > 13 ? path.substr(13) : "";  // after /api/puzzles/
    const auto slash = rest.find('/');
    const std::string first = rest.substr(0, slash);
    const std::string second = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (!svc)
        return reply(
            error(503, "store_unavailable", "this server keeps no puzzles (--store memory)"));
    auto allow = [&](std::initializer_list<const char*> names) {
        for (const auto& [k, v] : *query) {
            bool known = false;
            for (const char* n : names) known = known || k == n;
            if (!known) return false;
        }
        return true;
    };

    if (post) {
        if (!puzzle_id(first) || second != "answer")
            return reply(error(404, "not_found", "no such address: POST /api/puzzles/ID/answer"));
        if (!query->empty()) return reply(error(400, "bad_request", "no parameters here"));
        auto parsed = turns_of(body);
        if (auto* e = std::get_if<ApiResponse>(&parsed)) return reply(std::move(*e));
        return run(
            *svc,
            [id = first, turns = std::get<std::vector<Turn>>(std::move(parsed)),
             reader](PuzzleDb& db) { return answer(db, id, turns, reader); },
            ex, done);
    }
    if (!second.empty() || first.empty())
        return reply(error(404, "not_found", "no such address: " + path));
    const std::string player = reader.player_id;
    if (first == "next") {
        if (!allow({"theme"})) return reply(error(400, "bad_request", "only theme= is known"));
        const std::string theme = query->count("theme") ? (*query)["theme"] : "";
        if (query->count("theme") && !known_theme(theme))
            return reply(error(400, "bad_request", "no theme " + theme));
        return run(
            *svc,
            [player, theme](PuzzleDb& db) {
                double rating = 1500;
                if (!player.empty())
                    if (auto r = db.rating_of(player)) rating = r->rating;
                auto p = db.next(player, rating, theme);
                if (!p)
                    return error(404, "no_puzzle",
                                 theme.empty() ? "you have tried every puzzle there is"
                                               : "you have tried every puzzle of this theme");
                return ok(view(*p, false));
            },
            ex, done);
    }
    if (first == "daily") {
        if (!query->empty()) return reply(error(400, "bad_request", "no parameters here"));
        return run(
            *svc,
            [player](PuzzleDb& db) {
                const std::string day = utc_day(epoch_ms());
                auto p = db.daily(day);
                if (!p) return error(404, "no_puzzle", "this server has no puzzles yet");
                json j = view(*p, !player.empty() && db.tried(player, p->id));
                j["day"] = day;
                return ok(j);
            },
            ex, done);
    }
    if (first == "mine") {
        if (!allow({"limit"})) return reply(error(400, "bad_request", "only limit= is known"));
        int limit = 20;
        if (query->count("limit")) {
            const std::string& l = (*query)["limit"];
            if (l.empty() || l.size() > 3 ||
                l.find_first_not_of("0123456789") != std::string::npos || std::stoi(l) < 1 ||
                std::stoi(l) > 100)
                return reply(error(400, "bad_request", "limit: 1 to 100"));
            limit = std::stoi(l);
        }
        return run(
            *svc,
            [player, limit](PuzzleDb& db) {
                json attempts = json::array();
                json rating = nullptr;
                if (!player.empty()) {
                    for (const auto& a : db.attempts_of(player, limit))
                        attempts.push_back(
                            {{"id", a.puzzle_id},
                             {"solved", a.solved},
                             {"rated", a.rated},
                             {"at", iso8601(a.at_ms)},
                             {"rating", a.rating ? json(std::lround(*a.rating)) : json(nullptr)}});
                    if (auto r = db.rating_of(player)) {
                        auto v = rating_view(*r, epoch_ms());
                        rating = {{"rating", v.rating},
                                  {"deviation", v.deviation},
                                  {"games", v.games},
                                  {"provisional", v.provisional}};
                    }
                }
                return ok({{"rating", rating}, {"attempts", attempts}});
            },
            ex, done);
    }
    if (!puzzle_id(first)) return reply(error(404, "not_found", "no puzzle " + first));
    if (!query->empty()) return reply(error(400, "bad_request", "no parameters here"));
    return run(
        *svc,
        [player, id = first](PuzzleDb& db) {
            auto p = db.get(id);
            if (!p) return error(404, "not_found", "no puzzle " + id);
            return ok(view(*p, !player.empty() && db.tried(player, id)));
        },
        ex, done);
}

}  // namespace tf::server
