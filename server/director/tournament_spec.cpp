#include "server/director/tournament_spec.h"

#include <map>
#include <set>

#include "common/json.h"
#include "proto/ratings.h"

namespace tf::server {

using json = nlohmann::json;
namespace tn = tournament;

namespace {

// An integer field within [lo, hi]; `fallback` when absent (nullopt: required).
std::optional<std::int64_t> integer(const json& j, const char* key, std::int64_t lo,
                                    std::int64_t hi, std::optional<std::int64_t> fallback,
                                    std::string& error) {
    if (!j.contains(key)) {
        if (!fallback) error = std::string("\"") + key + "\" is required";
        return fallback;
    }
    const json& v = j[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
        error = std::string("\"") + key + "\" must be a whole number from " + std::to_string(lo) +
                " to " + std::to_string(hi);
        return std::nullopt;
    }
    return v.get<std::int64_t>();
}

std::optional<bool> boolean(const json& j, const char* key, bool fallback, std::string& error) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_boolean()) {
        error = std::string("\"") + key + "\" must be true or false";
        return std::nullopt;
    }
    return j[key].get<bool>();
}

std::optional<tn::GameResult> result_of(const std::string& s) {
    if (s == "silver") return tn::GameResult::SilverWins;
    if (s == "bronze") return tn::GameResult::BronzeWins;
    if (s == "draw") return tn::GameResult::Draw;
    return std::nullopt;
}

std::string result_text(const std::optional<tn::GameResult>& r) {
    if (!r) return "";
    switch (*r) {
        case tn::GameResult::SilverWins:
            return "silver";
        case tn::GameResult::BronzeWins:
            return "bronze";
        case tn::GameResult::Draw:
            break;
    }
    return "draw";
}

}  // namespace

std::variant<TournamentSpec, std::string> parse_spec(const json& j, std::int64_t now) {
    if (!j.is_object()) return std::string("send a JSON object");
    static const std::set<std::string> known = {
        "kind",        "name",        "variant", "time_control", "rated",
        "starts_at",   "starts_in_s", "minutes", "rounds",       "round_gap_s",
        "max_players", "public",      "bots",    "password",     "berserk"};
    for (const auto& [k, v] : j.items())
        if (!known.count(k)) return "unknown field \"" + k + "\"";
    TournamentSpec s;
    std::string error;
    const std::string kind =
        j.value("kind", json()).is_string() ? j["kind"].get<std::string>() : "";
    if (kind == "arena")
        s.kind = tn::Kind::Arena;
    else if (kind == "swiss")
        s.kind = tn::Kind::Swiss;
    else
        return std::string("\"kind\" must be \"arena\" or \"swiss\"");
    if (j.contains("name")) {
        if (!j["name"].is_string()) return std::string("\"name\" must be a string");
        s.name = j["name"].get<std::string>();
        if (s.name.size() < 2 || s.name.size() > std::size_t(kMaxNameLength))
            return "\"name\" must have 2 to " + std::to_string(kMaxNameLength) + " characters";
        for (unsigned char c : s.name)
            if (c < 0x20 || c == 0x7f) return std::string("\"name\" has a control character");
    }
    if (j.contains("variant")) {
        auto v = variant_from_json(j["variant"]);
        if (!v) return "\"variant\": " + v.error().message;
        s.variant = *v;
    }
    const json tc = j.value("time_control", json());
    if (!tc.is_object() || tc.contains("days_per_move"))
        return std::string(
            "\"time_control\" must be {\"initial_ms\", \"increment_ms\"}: tournaments are played "
            "live");
    for (const auto& [k, v] : tc.items())
        if (k != "initial_ms" && k != "increment_ms")
            return "unknown field \"time_control." + k + "\"";
    auto initial = integer(tc, "initial_ms", 15'000, 3 * 3600'000, std::nullopt, error);
    auto increment = integer(tc, "increment_ms", 0, 180'000, 0, error);
    if (!initial || !increment) return "time_control: " + error;
    s.clock = {*initial, *increment, 0};
    // Berserk (PROTOCOL.md "Tournaments" (Berserk)): an arena's, allowed unless it says not.
    if (s.kind == tn::Kind::Swiss && j.contains("berserk"))
        return std::string("\"berserk\" is for arenas");
    auto berserk = boolean(j, "berserk", true, error);
    if (!berserk) return error;
    s.clock.berserk = s.kind == tn::Kind::Arena && *berserk;
    auto rated = boolean(j, "rated", true, error);
    auto pub = boolean(j, "public", true, error);
    auto bots = boolean(j, "bots", true, error);
    if (!rated || !pub || !bots) return error;
    s.rated = *rated;
    s.is_public = *pub;
    s.bots = *bots;
    if (s.rated && !proto::rating_category(s.variant, s.clock))
        return std::string(
            "only the standard and the small board are rated: send \"rated\": false");
    if (j.contains("starts_at") && j.contains("starts_in_s"))
        return std::string("send \"starts_at\" or \"starts_in_s\", not both");
    if (j.contains("starts_at")) {
        auto at = integer(j, "starts_at", now, now + kMaxStartsInMs, std::nullopt, error);
        if (!at) return error + " (epoch ms, within 7 days)";
        s.starts_at = *at;
    } else {
        auto in = integer(j, "starts_in_s", 0, kMaxStartsInMs / 1000, 60, error);
        if (!in) return error;
        s.starts_at = now + *in * 1000;
    }
    if (s.kind == tn::Kind::Arena) {
        if (j.contains("rounds") || j.contains("round_gap_s"))
            return std::string("an arena has \"minutes\", not rounds");
        auto m = integer(j, "minutes", 1, kMaxArenaMinutes, std::nullopt, error);
        if (!m) return error;
        s.minutes = int(*m);
    } else {
        if (j.contains("minutes")) return std::string("a Swiss has \"rounds\", not minutes");
        auto r = integer(j, "rounds", 1, kMaxRounds, std::nullopt, error);
        auto gap = integer(j, "round_gap_s", 0, kMaxRoundGapS, 10, error);
        if (!r || !gap) return error;
        s.rounds = int(*r);
        s.round_gap_s = int(*gap);
    }
    auto max = integer(j, "max_players", 0, kMaxPlayers, 0, error);
    if (!max) return error;
    if (*max == 1) return std::string("\"max_players\" must be 0 (no limit) or at least 2");
    s.max_players = int(*max);
    if (j.contains("password")) {
        if (!j["password"].is_string() || j["password"].get<std::string>().empty() ||
            j["password"].get<std::string>().size() > 100)
            return std::string("\"password\" must be a string of 1 to 100 characters");
        s.password = j["password"].get<std::string>();
    }
    return s;
}

std::string settings_text(const TournamentSpec& s) {
    json j{{"variant", to_json(s.variant)},
           {"time_control",
            {{"initial_ms", s.clock.initial_ms}, {"increment_ms", s.clock.increment_ms}}},
           {"rated", s.rated},
           {"bots", s.bots},
           {"max_players", s.max_players}};
    if (s.kind == tn::Kind::Arena) {
        j["minutes"] = s.minutes;
        j["berserk"] = s.clock.berserk;
    } else {
        j["rounds"] = s.rounds;
        j["round_gap_s"] = s.round_gap_s;
    }
    return j.dump();
}

StoredTournament new_tournament(const TournamentSpec& s, const std::string& by_id,
                                const std::string& by_name, std::int64_t now) {
    StoredTournament t;
    t.kind = s.kind == tn::Kind::Arena ? "arena" : "swiss";
    t.name = s.name;
    t.created_by = by_id;
    t.creator_name = by_name;
    t.settings = settings_text(s);
    t.is_public = s.is_public;
    t.starts_at = s.starts_at;
    t.created_at = now;
    return t;
}

std::optional<TournamentSpec> spec_of(const StoredTournament& t) {
    const json j = json::parse(t.settings, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    try {
        TournamentSpec s;
        s.kind = t.kind == "swiss" ? tn::Kind::Swiss : tn::Kind::Arena;
        s.name = t.name;
        auto v = variant_from_json(j.at("variant"));
        if (!v) return std::nullopt;
        s.variant = *v;
        s.clock = {j.at("time_control").at("initial_ms").get<std::int64_t>(),
                   j.at("time_control").at("increment_ms").get<std::int64_t>(), 0};
        s.clock.berserk = j.value("berserk", false);
        s.rated = j.at("rated").get<bool>();
        s.bots = j.at("bots").get<bool>();
        s.max_players = j.at("max_players").get<int>();
        s.minutes = j.value("minutes", 0);
        s.rounds = j.value("rounds", 0);
        s.round_gap_s = j.value("round_gap_s", 0);
        s.starts_at = t.starts_at;
        s.is_public = t.is_public;
        return s;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

std::string category_of(const TournamentSpec& s) {
    return proto::rating_category(s.variant, s.clock).value_or("");
}

tn::Tournament rebuild(const TournamentSpec& s, const TournamentRows& rows) {
    tn::Settings ds{.kind = s.kind,
                    .starts_at = s.starts_at,
                    .length_ms = std::int64_t(s.minutes) * 60'000,
                    .rounds = s.rounds,
                    .round_gap_ms = std::int64_t(s.round_gap_s) * 1000,
                    .max_players = s.max_players,
                    .berserk = s.clock.berserk};
    const std::string& p = rows.t.phase;
    const tn::Phase phase = p == "running"     ? tn::Phase::Running
                            : p == "finished"  ? tn::Phase::Finished
                            : p == "cancelled" ? tn::Phase::Cancelled
                                               : tn::Phase::Created;
    std::vector<tn::Entrant> entrants;
    for (const auto& e : rows.entrants) entrants.push_back({e.player_id, e.rating, e.active});
    std::vector<tn::TournamentGame> games;
    for (const auto& g : rows.games)
        games.push_back({.round = g.round,
                         .code = g.code,
                         .silver = g.silver,
                         .bronze = g.bronze,
                         .ended = g.ended,
                         .result = result_of(g.result),
                         .turns = g.turns,
                         .silver_berserk = g.silver_berserk,
                         .bronze_berserk = g.bronze_berserk,
                         .paired_at = g.paired_at,
                         .ended_at = g.ended_at});
    std::vector<tn::SwissRecord::Bye> byes;
    for (const auto& b : rows.byes) byes.push_back({b.round, b.player_id});
    return tn::Tournament(ds, phase, rows.t.round, std::move(entrants), std::move(games),
                          std::move(byes));
}

TournamentRows rows_of(const tn::Tournament& t, const TournamentRows& before) {
    TournamentRows r = before;
    switch (t.phase()) {
        case tn::Phase::Created:
            r.t.phase = "created";
            break;
        case tn::Phase::Running:
            r.t.phase = "running";
            break;
        case tn::Phase::Finished:
            r.t.phase = "finished";
            break;
        case tn::Phase::Cancelled:
            r.t.phase = "cancelled";
            break;
    }
    r.t.round = t.round();
    r.games.clear();
    for (std::size_t i = 0; i < t.games().size(); ++i) {
        const auto& g = t.games()[i];
        r.games.push_back({.seq = int(i),
                           .round = g.round,
                           .code = g.code,
                           .silver = g.silver,
                           .bronze = g.bronze,
                           .ended = g.ended,
                           .result = result_text(g.result),
                           .turns = g.turns,
                           .silver_berserk = g.silver_berserk,
                           .bronze_berserk = g.bronze_berserk,
                           .paired_at = g.paired_at,
                           .ended_at = g.ended_at});
    }
    r.byes.clear();
    for (const auto& b : t.byes()) r.byes.push_back({b.round, b.player});
    return r;
}

json tournament_json(const TournamentRows& rows, const TournamentSpec& s, bool full) {
    const StoredTournament& t = rows.t;
    json j{
        {"id", t.id},
        {"kind", t.kind},
        {"name", t.name},
        {"created_by", t.created_by.empty() ? json(nullptr)
                                            : json{{"id", t.created_by}, {"name", t.creator_name}}},
        {"variant", to_json(s.variant)},
        {"time_control",
         {{"initial_ms", s.clock.initial_ms}, {"increment_ms", s.clock.increment_ms}}},
        {"rated", s.rated},
        {"public", t.is_public},
        {"password", !t.password_hash.empty()},
        {"bots", s.bots},
        {"max_players", s.max_players},
        {"starts_at", t.starts_at},
        {"phase", t.phase},
        {"players", t.players},
        {"created_at", t.created_at}};
    if (t.finished_at) j["finished_at"] = t.finished_at;
    if (s.kind == tn::Kind::Arena) {
        j["minutes"] = s.minutes;
        j["ends_at"] = s.starts_at + std::int64_t(s.minutes) * 60'000;
        j["berserk"] = s.clock.berserk;
    } else {
        j["rounds"] = s.rounds;
        j["round"] = t.round;
        j["round_gap_s"] = s.round_gap_s;
    }
    if (!full) return j;
    std::map<std::string, const StoredEntrant*> who;
    for (const auto& e : rows.entrants) who[e.player_id] = &e;
    const auto player = [&](const std::string& id) {
        json p{{"id", id}, {"name", who.count(id) ? who[id]->name : id}};
        if (who.count(id) && who[id]->bot) p["bot"] = true;
        return p;
    };
    std::map<std::string, std::string> playing;  // player: the game it plays now
    json games = json::array();
    for (const auto& g : rows.games) {
        json gj{{"code", g.code},
                {"silver", player(g.silver)},
                {"bronze", player(g.bronze)},
                {"ended", g.ended},
                {"result", g.ended && !g.result.empty() ? json(g.result) : json(nullptr)},
                {"turns", g.turns},
                {"paired_at", g.paired_at},
                {"ended_at", g.ended ? json(g.ended_at) : json(nullptr)}};
        if (s.kind == tn::Kind::Swiss) gj["round"] = g.round;
        games.push_back(std::move(gj));
        if (!g.ended) playing[g.silver] = playing[g.bronze] = g.code;
    }
    const auto now_playing = [&](const std::string& id) {
        return playing.count(id) ? json(playing[id]) : json(nullptr);
    };
    const tn::Tournament tour = rebuild(s, rows);
    json standings = json::array();
    if (s.kind == tn::Kind::Arena) {
        for (const auto& st : tour.arena_standings()) {
            json sheet = json::array();
            for (const auto& e : st.sheet) {
                json ej{{"points", e.points}};
                if (e.fire) ej["fire"] = true;
                if (e.berserk) ej["berserk"] = true;
                sheet.push_back(std::move(ej));
            }
            json row = player(st.id);
            row.update(json{{"rank", st.rank},
                            {"points", st.points},
                            {"performance", st.performance},
                            {"rating", st.rating},
                            {"played", st.played},
                            {"wins", st.wins},
                            {"draws", st.draws},
                            {"losses", st.losses},
                            {"fire", st.fire},
                            {"active", st.active},
                            {"playing", now_playing(st.id)},
                            {"sheet", std::move(sheet)}});
            standings.push_back(std::move(row));
        }
    } else {
        for (const auto& st : tour.swiss_standings()) {
            json row = player(st.id);
            row.update(json{{"rank", st.rank},
                            {"score", st.score / 2.0},
                            {"buchholz", st.buchholz / 2.0},
                            {"sonneborn_berger", st.sonneborn / 4.0},
                            {"rating", st.rating},
                            {"played", st.played},
                            {"wins", st.wins},
                            {"draws", st.draws},
                            {"losses", st.losses},
                            {"byes", st.byes},
                            {"active", st.active},
                            {"playing", now_playing(st.id)}});
            standings.push_back(std::move(row));
        }
    }
    j["standings"] = std::move(standings);
    j["games"] = std::move(games);
    if (s.kind == tn::Kind::Swiss) {
        json byes = json::array();
        for (const auto& b : rows.byes)
            byes.push_back({{"round", b.round}, {"player", player(b.player_id)}});
        j["byes"] = std::move(byes);
    }
    return j;
}

}  // namespace tf::server

namespace tf::server {

std::string tournament_report(const TournamentRows& rows, const TournamentSpec& s) {
    std::map<std::string, std::string> name;
    for (const auto& e : rows.entrants) name[e.player_id] = e.name;
    const auto called = [&](const std::string& id) { return name.count(id) ? name[id] : id; };
    const tn::Tournament t = rebuild(s, rows);
    std::vector<tn::Entrant> named;
    for (const auto& e : t.entrants()) named.push_back({called(e.id), e.rating, e.active});
    const std::string head = rows.t.name + " (" + (s.kind == tn::Kind::Arena ? "arena" : "Swiss") +
                             ", " + rows.t.phase + ")";
    if (s.kind == tn::Kind::Swiss) {
        tn::SwissRecord r = t.swiss_record();
        for (auto& g : r.games) {
            g.silver = called(g.silver);
            g.bronze = called(g.bronze);
        }
        for (auto& b : r.byes) b.player = called(b.player);
        return tn::swiss_report(head, named, r);
    }
    std::string out = head + "\n\nStandings (points, performance; each game's points)\n";
    for (const auto& st : t.arena_standings()) {
        out += std::to_string(st.rank) + ". " + called(st.id) + "  " + std::to_string(st.points) +
               "  " + std::to_string(st.performance) + "  (+" + std::to_string(st.wins) + " =" +
               std::to_string(st.draws) + " -" + std::to_string(st.losses) + ")  ";
        for (const auto& e : st.sheet)
            out += std::to_string(e.points) + (e.fire ? "*" : "") + (e.berserk ? "b" : "") + " ";
        out += "\n";
    }
    out += "\nGames (silver first; * on fire, b berserk)\n";
    for (const auto& g : t.games()) {
        const char* r = !g.ended                                  ? "*"
                        : !g.result                               ? "aborted"
                        : *g.result == tn::GameResult::SilverWins ? "1-0"
                        : *g.result == tn::GameResult::BronzeWins ? "0-1"
                                                                  : "½-½";
        out += g.code + " " + called(g.silver) + " " + r + " " + called(g.bronze) + "\n";
    }
    return out;
}

}  // namespace tf::server
