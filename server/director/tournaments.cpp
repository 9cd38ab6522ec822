#include "server/director/tournaments.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "server/base/secrets.h"
#include "server/base/time.h"
#include "server/room/directory.h"

namespace tf::server {

namespace tn = tournament;
using json = nlohmann::json;

std::string tournament_id() {
    return random_code(8);
}

TournamentService::TournamentService(Open open, Store::Executor ex, std::string node,
                                     std::chrono::milliseconds pass,
                                     std::function<void(MakeGame)> make)
    : ex_(std::move(ex)),
      node_(std::move(node)),
      every_(pass),
      make_(std::move(make)),
      timer_(ex_),
      thread_(std::move(open), kMaxQueued, "tf-tournaments") {}

void TournamentService::schedule(std::vector<ScheduledTournament> entries) {
    schedule_ = std::move(entries);
    last_slot_.assign(schedule_.size(), "");
}

void TournamentService::make_scheduled(TournamentDb& db, std::int64_t now) {
    for (std::size_t i = 0; i < schedule_.size(); ++i) {
        const ScheduledTournament& e = schedule_[i];
        const auto slot = due_slot(e, now);
        if (!slot) continue;
        const std::string key = schedule_key(e, *slot);
        if (last_slot_[i] == key) continue;
        if (db.schedule_taken(key)) {  // another node (or an earlier run) made it
            last_slot_[i] = key;
            continue;
        }
        auto spec = slot_spec(e, *slot, now);
        if (auto* err = std::get_if<std::string>(&spec)) {
            spdlog::error("tournament schedule: {}: {}", key, *err);
            last_slot_[i] = key;
            continue;
        }
        StoredTournament t = new_tournament(std::get<TournamentSpec>(spec), "", "", now);
        t.schedule_key = key;
        for (int attempt = 0; attempt < 8; ++attempt) {
            t.id = tournament_id();
            if (db.create(t)) {
                spdlog::info("tournament {} ({}) made by the schedule, starting {}", t.id, key,
                             *slot);
                break;
            }
            if (db.schedule_taken(key)) break;  // a node racing for the same slot won
        }
        last_slot_[i] = key;
    }
}

void TournamentService::stop() {
    stopped_ = true;
    boost::asio::post(ex_, [self = shared_from_this()] { self->timer_.cancel(); });
}

void TournamentService::soon() {
    boost::asio::post(ex_, [self = shared_from_this()] {
        if (self->stopped_) return;
        if (self->passing_) {
            self->again_ = true;
            return;
        }
        self->timer_.cancel();  // its handler passes now
    });
}

// One pass at a time on the thread; the next is due `every_` after one ends (sooner when
// soon() asked).
void TournamentService::pass() {
    if (stopped_) return;
    passing_ = true;
    thread_.run<std::vector<MakeGame>>(
        [self = weak_from_this()](TournamentDb& db) {
            auto s = self.lock();
            return s ? s->direct(db, [] { return epoch_ms(); }) : std::vector<MakeGame>{};
        },
        ex_,
        [self = shared_from_this()](Read<std::vector<MakeGame>> r) {
            self->passing_ = false;
            if (r.ok())
                self->made(std::move(*r.value));
            else
                spdlog::warn("tournaments: a pass failed ({}); next pass", r.error);
            if (self->stopped_) return;
            const bool again = std::exchange(self->again_, false);
            self->timer_.expires_after(again ? std::chrono::milliseconds(0) : self->every_);
            self->timer_.async_wait([self](boost::system::error_code) { self->pass(); });
        },
        false);
}

void TournamentService::made(std::vector<MakeGame> games) {
    if (stopped_) return;
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(making_,
                  [&](const auto& m) { return now - m.second > std::chrono::seconds(30); });
    for (auto& g : games) {
        if (g.made) {
            make_(std::move(g));
            continue;
        }
        if (making_.count(g.code)) continue;
        making_[g.code] = now;
        make_(std::move(g));
    }
}

namespace {

std::optional<tn::GameResult> game_result(const std::string& text) {
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    const auto r = proto::parse_result(j);
    if (!r) return std::nullopt;
    switch (r->winner) {
        case proto::Winner::Silver:
            return tn::GameResult::SilverWins;
        case proto::Winner::Bronze:
            return tn::GameResult::BronzeWins;
        case proto::Winner::Draw:
            return tn::GameResult::Draw;
        case proto::Winner::None:
            break;
    }
    return std::nullopt;
}

std::string fresh_code(TournamentDb& db) {
    for (int i = 0; i < 16; ++i) {
        std::string code = random_code();
        if (db.code_free(code)) return code;
    }
    throw StoreError("no free game code could be found");
}

TournamentService::MakeGame to_make(const TournamentRows& rows, const TournamentSpec& s,
                                    const StoredPairing& g) {
    TournamentService::MakeGame m;
    m.tournament = rows.t.id;
    m.name = rows.t.name;
    m.code = g.code;
    m.round = g.round;
    for (const auto& e : rows.entrants) {
        if (e.player_id == g.silver) m.silver = {e.player_id, e.name, true, e.bot};
        if (e.player_id == g.bronze) m.bronze = {e.player_id, e.name, true, e.bot};
    }
    m.params.variant = s.variant;
    m.params.time_control = s.clock;
    m.params.is_public = true;
    m.params.creator_side = Side::Silver;
    m.params.quick_match = true;  // both seats taken at once: never in the open list
    m.params.rated = s.rated;
    m.params.opponent = m.bronze;
    return m;
}

}  // namespace

std::vector<TournamentService::MakeGame> TournamentService::direct(
    TournamentDb& db, const std::function<std::int64_t()>& clock) {
    std::vector<MakeGame> out;
    const std::int64_t start = clock();
    make_scheduled(db, start);
    for (const auto& id : db.directable(node_, start)) {
        try {
            std::int64_t now = clock();
            const auto epoch = db.claim(id, node_, now, now + kLeaseMs);
            if (!epoch) continue;
            const auto rows = db.load(id);
            if (!rows) continue;
            const auto spec = spec_of(rows->t);
            if (!spec) {
                spdlog::error("tournament {}: its settings cannot be read; not directed", id);
                continue;
            }
            const bool taken = std::exchange(epochs_[id], *epoch) != *epoch;
            if (taken)
                spdlog::info("tournament {}: directed by {} from epoch {}", id, node_, *epoch);
            tn::Tournament t = rebuild(*spec, *rows);
            // The results of its games being played; a game paired but missing is made again;
            // one being played, taken over from another director, has its players told again.
            std::vector<std::size_t> missing, tell;
            for (std::size_t i = 0; i < rows->games.size(); ++i) {
                const StoredPairing& g = rows->games[i];
                if (g.ended) continue;
                const auto st = db.game_state(g.code);
                if (!st) {
                    missing.push_back(i);
                    continue;
                }
                // A game over before any turn of play (resigned, or lost on time, at once) is
                // worth nothing, as an aborted one: no points fed to an accomplice.
                if (st->status == "over")
                    t.ended(g.code, st->turns > 0 ? game_result(st->result) : std::nullopt,
                            st->turns, st->berserk[0], st->berserk[1],
                            st->finished_ms ? st->finished_ms : now);
                else if (st->status == "cancelled" || st->status == "aborted" ||
                         st->status == "quarantined")
                    t.ended(g.code, std::nullopt, st->turns, false, false, now);
                else if (taken && st->status == "playing")
                    tell.push_back(i);
            }
            // The time of the decisions: after the results read (a game that ended meanwhile
            // ended before its players are paired again).
            now = std::max(now, clock());
            const tn::Steps steps = t.step(now);
            for (const std::size_t i : steps.make) t.made(i, fresh_code(db));
            const TournamentRows after = rows_of(t, *rows);
            db.save(node_, *epoch, *rows, after, now);
            if (steps.started) spdlog::info("tournament {} ({}) started", id, rows->t.name);
            if (steps.round)
                spdlog::info("tournament {}: round {}, {} games{}", id, steps.round,
                             steps.make.size(), steps.bye ? ", a bye for " + *steps.bye : "");
            if (steps.finished) spdlog::info("tournament {} finished", id);
            if (steps.cancelled)
                spdlog::info("tournament {} cancelled: fewer than two players", id);
            for (const std::size_t i : steps.make)
                out.push_back(to_make(after, *spec, after.games[i]));
            for (const std::size_t i : missing)
                out.push_back(to_make(after, *spec, after.games[i]));
            for (const std::size_t i : tell) {
                out.push_back(to_make(after, *spec, after.games[i]));
                out.back().made = true;
            }
        } catch (const Fenced&) {
            spdlog::info("tournament {}: another node directs it now", id);
        }
    }
    return out;
}

}  // namespace tf::server
