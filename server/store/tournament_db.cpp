#include "server/store/tournament_db.h"

#include <nlohmann/json.hpp>

namespace tf::server {

namespace {

constexpr const char* kCols =
    "t.id, t.kind, t.name, t.created_by, t.creator_name, t.settings, t.is_public, "
    "t.password_hash, t.starts_at, t.phase, t.round, t.director, t.epoch, t.lease_until, "
    "t.created_at, t.finished_at, t.schedule_key, "
    "(SELECT COUNT(*) FROM tournament_players p WHERE p.tournament = t.id)";

StoredTournament tournament_of(const SideDb::Row& r) {
    StoredTournament t;
    t.id = str(r[0]);
    t.kind = str(r[1]);
    t.name = str(r[2]);
    t.created_by = str(r[3]);
    t.creator_name = str(r[4]);
    t.settings = str(r[5]);
    t.is_public = truth(r[6]);
    t.password_hash = str(r[7]);
    t.starts_at = num(r[8]);
    t.phase = str(r[9]);
    t.round = int(num(r[10]));
    t.director = str(r[11]);
    t.epoch = num(r[12]);
    t.lease_until = num(r[13]);
    t.created_at = num(r[14]);
    t.finished_at = num(r[15]);
    t.schedule_key = str(r[16]);
    t.players = int(num(r[17]));
    return t;
}

SideDb::Value flag(bool b) {
    return std::int64_t(b ? 1 : 0);
}

}  // namespace

bool TournamentDb::create(const StoredTournament& t) {
    auto rows = db_->exec(
        "INSERT INTO tournaments (id, kind, name, created_by, creator_name, settings, is_public, "
        "password_hash, starts_at, phase, round, director, epoch, lease_until, created_at, "
        "finished_at, schedule_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, '', 0, "
        "0, $12, 0, $13) ON CONFLICT DO NOTHING RETURNING id",
        {t.id, t.kind, t.name, t.created_by, t.creator_name, t.settings, flag(t.is_public),
         t.password_hash, t.starts_at, t.phase, std::int64_t(t.round), t.created_at,
         t.schedule_key.empty() ? SideDb::Value() : SideDb::Value(t.schedule_key)});
    return !rows.empty();
}

int TournamentDb::unfinished_by(const std::string& created_by) {
    auto rows = db_->exec(
        "SELECT COUNT(*) FROM tournaments WHERE created_by = $1 AND phase IN ('created', "
        "'running')",
        {created_by});
    return int(num(rows[0][0]));
}

std::vector<StoredTournament> TournamentDb::list(std::int64_t finished_since, int limit,
                                                 const std::string& viewer) {
    std::vector<StoredTournament> out;
    for (const auto& r : db_->exec(
             std::string("SELECT ") + kCols +
                 " FROM tournaments t WHERE (t.is_public = 1 OR ($3 <> '' AND (t.created_by = $3 "
                 "OR EXISTS (SELECT 1 FROM tournament_players p WHERE p.tournament = t.id AND "
                 "p.player_id = $3)))) AND (t.phase IN ('created', 'running') OR (t.phase = "
                 "'finished' AND t.finished_at >= $1)) ORDER BY CASE t.phase WHEN 'running' THEN "
                 "0 WHEN 'created' THEN 1 ELSE 2 END, CASE WHEN t.phase = 'finished' THEN "
                 "-t.finished_at ELSE t.starts_at END, t.id LIMIT $2",
             {finished_since, std::int64_t(limit), viewer}))
        out.push_back(tournament_of(r));
    return out;
}

std::optional<StoredTournament> TournamentDb::find(const std::string& id) {
    auto t =
        db_->exec(std::string("SELECT ") + kCols + " FROM tournaments t WHERE t.id = $1", {id});
    if (t.empty()) return std::nullopt;
    return tournament_of(t[0]);
}

std::optional<TournamentRows> TournamentDb::load(const std::string& id) {
    auto t = find(id);
    if (!t) return std::nullopt;
    TournamentRows out;
    out.t = std::move(*t);
    for (const auto& r : db_->exec("SELECT player_id, name, rating, active, bot FROM "
                                   "tournament_players WHERE tournament = $1 ORDER BY seq",
                                   {id}))
        out.entrants.push_back({str(r[0]), str(r[1]), int(num(r[2])), truth(r[3]), truth(r[4])});
    for (const auto& r : db_->exec(
             "SELECT seq, round, code, silver, bronze, ended, result, turns, silver_berserk, "
             "bronze_berserk, paired_at, ended_at FROM tournament_games WHERE tournament = $1 "
             "ORDER BY seq",
             {id})) {
        StoredPairing g;
        g.seq = int(num(r[0]));
        g.round = int(num(r[1]));
        g.code = str(r[2]);
        g.silver = str(r[3]);
        g.bronze = str(r[4]);
        g.ended = truth(r[5]);
        g.result = str(r[6]);
        g.turns = int(num(r[7]));
        g.silver_berserk = truth(r[8]);
        g.bronze_berserk = truth(r[9]);
        g.paired_at = num(r[10]);
        g.ended_at = num(r[11]);
        out.games.push_back(std::move(g));
    }
    for (const auto& r : db_->exec(
             "SELECT round, player_id FROM tournament_byes WHERE tournament = $1 ORDER BY round",
             {id}))
        out.byes.push_back({int(num(r[0])), str(r[1])});
    return out;
}

bool TournamentDb::schedule_taken(const std::string& key) {
    return !db_->exec("SELECT 1 FROM tournaments WHERE schedule_key = $1", {key}).empty();
}

TournamentDb::Join TournamentDb::join(const std::string& id, const StoredEntrant& e,
                                      int max_players) {
    return db_->transaction([&] {
        auto t = db_->exec(std::string("SELECT phase FROM tournaments WHERE id = $1") + db_->lock(),
                           {id});
        if (t.empty()) return Join::NoSuchTournament;
        const std::string phase = str(t[0][0]);
        if (phase != "created" && phase != "running") return Join::Over;
        auto had = db_->exec(
            "SELECT active FROM tournament_players WHERE tournament = $1 AND player_id = $2",
            {id, e.player_id});
        if (!had.empty()) {
            if (truth(had[0][0])) return Join::Already;
            db_->exec(
                "UPDATE tournament_players SET active = 1 WHERE tournament = $1 AND player_id = $2",
                {id, e.player_id});
            return Join::Back;
        }
        const auto count = num(
            db_->exec("SELECT COUNT(*) FROM tournament_players WHERE tournament = $1", {id})[0][0]);
        if (max_players > 0 && count >= max_players) return Join::Full;
        db_->exec(
            "INSERT INTO tournament_players (tournament, player_id, name, rating, active, bot, "
            "seq) "
            "VALUES ($1, $2, $3, $4, 1, $5, $6)",
            {id, e.player_id, e.name, std::int64_t(e.rating), flag(e.bot), count});
        return Join::Joined;
    });
}

bool TournamentDb::withdraw(const std::string& id, const std::string& player_id) {
    return !db_->exec(
                   "UPDATE tournament_players SET active = 0 WHERE tournament = $1 AND player_id = "
                   "$2 AND active = 1 RETURNING player_id",
                   {id, player_id})
                .empty();
}

std::optional<double> TournamentDb::rating(const std::string& player_id,
                                           const std::string& category) {
    auto rows = db_->exec("SELECT rating FROM ratings WHERE player_id = $1 AND category = $2",
                          {player_id, category});
    if (rows.empty()) return std::nullopt;
    return real(rows[0][0]);
}

std::vector<std::string> TournamentDb::directable(const std::string& node, std::int64_t now) {
    std::vector<std::string> out;
    // A tournament is looked at from a minute before its start, and after its end until its
    // last game ended (an arena's games still being played then: their results are kept).
    for (const auto& r :
         db_->exec("SELECT id FROM tournaments t WHERE (phase = 'running' OR (phase = 'created' "
                   "AND starts_at <= $3) OR (phase = 'finished' AND EXISTS (SELECT 1 "
                   "FROM tournament_games g WHERE g.tournament = t.id AND g.ended = 0))) AND "
                   "(director = $1 OR lease_until < $2) ORDER BY starts_at, id LIMIT 200",
                   {node, now, now + 60'000}))
        out.push_back(str(r[0]));
    return out;
}

std::optional<std::int64_t> TournamentDb::claim(const std::string& id, const std::string& node,
                                                std::int64_t now, std::int64_t until) {
    auto rows = db_->exec(
        "UPDATE tournaments SET epoch = CASE WHEN director = $2 THEN epoch ELSE epoch + 1 END, "
        "director = $2, lease_until = $4 WHERE id = $1 AND phase IN ('created', 'running', "
        "'finished') AND (director = $2 OR lease_until < $3) RETURNING epoch",
        {id, node, now, until});
    if (rows.empty()) return std::nullopt;
    return num(rows[0][0]);
}

void TournamentDb::save(const std::string& node, std::int64_t epoch, const TournamentRows& before,
                        const TournamentRows& after, std::int64_t now) {
    const std::string& id = after.t.id;
    db_->transaction([&] {
        auto held = db_->exec(
            std::string("SELECT director, epoch FROM tournaments WHERE id = $1") + db_->lock(),
            {id});
        if (held.empty() || str(held[0][0]) != node || num(held[0][1]) != epoch) throw Fenced();
        const bool over = after.t.phase == "finished" || after.t.phase == "cancelled";
        db_->exec(
            "UPDATE tournaments SET phase = $2, round = $3, finished_at = $4, lease_until = CASE "
            "WHEN $5 = 1 THEN 0 ELSE lease_until END WHERE id = $1",
            {id, after.t.phase, std::int64_t(after.t.round),
             over && before.t.finished_at == 0 ? now : before.t.finished_at, flag(over)});
        for (std::size_t i = 0; i < after.games.size(); ++i) {
            const StoredPairing& g = after.games[i];
            if (i >= before.games.size()) {
                db_->exec(
                    "INSERT INTO tournament_games (tournament, seq, round, code, silver, bronze, "
                    "ended, result, turns, silver_berserk, bronze_berserk, paired_at, ended_at) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                    {id, std::int64_t(g.seq), std::int64_t(g.round), g.code, g.silver, g.bronze,
                     flag(g.ended), g.result, std::int64_t(g.turns), flag(g.silver_berserk),
                     flag(g.bronze_berserk), g.paired_at, g.ended_at});
                continue;
            }
            const StoredPairing& was = before.games[i];
            if (was.ended == g.ended && was.code == g.code) continue;
            db_->exec(
                "UPDATE tournament_games SET code = $3, ended = $4, result = $5, turns = $6, "
                "silver_berserk = $7, bronze_berserk = $8, ended_at = $9 WHERE tournament = $1 "
                "AND seq = $2",
                {id, std::int64_t(g.seq), g.code, flag(g.ended), g.result, std::int64_t(g.turns),
                 flag(g.silver_berserk), flag(g.bronze_berserk), g.ended_at});
        }
        for (std::size_t i = before.byes.size(); i < after.byes.size(); ++i)
            db_->exec(
                "INSERT INTO tournament_byes (tournament, round, player_id) VALUES ($1, $2, $3)",
                {id, std::int64_t(after.byes[i].round), after.byes[i].player_id});
    });
}

std::optional<PairedGameState> TournamentDb::game_state(const std::string& code) {
    auto rows =
        db_->exec("SELECT status, result, turns, finished_at FROM games WHERE code = $1", {code});
    if (rows.empty()) return std::nullopt;
    PairedGameState st{str(rows[0][0]), str(rows[0][1]), int(num(rows[0][2])), num(rows[0][3])};
    // Who went berserk, once it is over: the journal's "berserk" events (the wire's event
    // message), at most two.
    if (st.status != "over") return st;
    for (const auto& r :
         db_->exec("SELECT event FROM journal WHERE code = $1 AND kind = 'berserk'", {code})) {
        const auto j = nlohmann::json::parse(str(r[0]), nullptr, false);
        const auto p = j.is_object() ? j.value("payload", nlohmann::json()) : nlohmann::json();
        const auto side = p.is_object() ? p.value("side", "") : "";
        if (side == "silver") st.berserk[0] = true;
        if (side == "bronze") st.berserk[1] = true;
    }
    return st;
}

bool TournamentDb::code_free(const std::string& code) {
    return db_
        ->exec(
            "SELECT 1 FROM games WHERE code = $1 UNION ALL SELECT 1 FROM "
            "tournament_games WHERE code = $1",
            {code})
        .empty();
}

std::unique_ptr<TournamentDb> open_sqlite_tournaments(const std::string& data_dir) {
    return std::make_unique<TournamentDb>(open_sqlite_side(data_dir, 11, "tournaments"));
}

std::unique_ptr<TournamentDb> open_pg_tournaments(const std::string& conninfo) {
    return std::make_unique<TournamentDb>(open_pg_side(conninfo));
}

}  // namespace tf::server
