#include "server/tournament/tournament.h"

#include <algorithm>
#include <map>

namespace tf::server::tournament {

JoinRefusal Tournament::join(const std::string& id, int rating) {
    if (phase_ == Phase::Finished || phase_ == Phase::Cancelled) return JoinRefusal::Over;
    for (auto& e : entrants_)
        if (e.id == id) {
            e.active = true;
            return JoinRefusal::None;
        }
    if (settings_.max_players > 0 && int(entrants_.size()) >= settings_.max_players)
        return JoinRefusal::Full;
    entrants_.push_back({id, rating, true});
    return JoinRefusal::None;
}

bool Tournament::withdraw(const std::string& id) {
    for (auto& e : entrants_)
        if (e.id == id) {
            e.active = false;
            return true;
        }
    return false;
}

void Tournament::made(std::size_t i, std::string code) {
    if (i < games_.size()) games_[i].code = std::move(code);
}

bool Tournament::ended(const std::string& code, std::optional<GameResult> result, int turns,
                       bool silver_berserk, bool bronze_berserk, std::int64_t now) {
    for (auto& g : games_) {
        if (g.code != code || code.empty()) continue;
        if (g.ended) return false;
        g.ended = true;
        g.result = result;
        g.turns = turns;
        g.silver_berserk = silver_berserk;
        g.bronze_berserk = bronze_berserk;
        g.ended_at = now;
        return true;
    }
    return false;
}

bool Tournament::playing(const std::string& id) const {
    return std::any_of(games_.begin(), games_.end(), [&](const TournamentGame& g) {
        return !g.ended && (g.silver == id || g.bronze == id);
    });
}

Steps Tournament::step(std::int64_t now) {
    Steps out;
    if (phase_ == Phase::Finished || phase_ == Phase::Cancelled) return out;
    if (phase_ == Phase::Created) {
        if (now < settings_.starts_at) return out;
        if (settings_.kind == Kind::Swiss &&
            std::count_if(entrants_.begin(), entrants_.end(),
                          [](const Entrant& e) { return e.active; }) < 2) {
            phase_ = Phase::Cancelled;
            out.cancelled = true;
            return out;
        }
        phase_ = Phase::Running;
        out.started = true;
    }
    if (settings_.kind == Kind::Arena) {
        if (now >= arena_end()) {
            phase_ = Phase::Finished;
            out.finished = true;
            return out;
        }
        pair_arena_now(now, out);
    } else if (round_over()) {
        next_round(now, out);
    }
    return out;
}

std::optional<std::int64_t> Tournament::next_due() const {
    switch (phase_) {
        case Phase::Created:
            return settings_.starts_at;
        case Phase::Running:
            break;
        default:
            return std::nullopt;
    }
    if (settings_.kind == Kind::Arena) return arena_end();
    if (!round_over()) return std::nullopt;
    std::int64_t last = 0;
    for (const auto& g : games_)
        if (g.round == round_) last = std::max(last, g.ended_at);
    return last + settings_.round_gap_ms;
}

bool Tournament::round_over() const {
    return std::all_of(games_.begin(), games_.end(), [&](const TournamentGame& g) {
        return g.round != round_ || (g.ended && !g.code.empty());
    });
}

void Tournament::pair_arena_now(std::int64_t now, Steps& out) {
    std::map<std::string, int> rank;
    for (const auto& s : arena_standings()) rank[s.id] = s.rank;
    // Each free player's sides and last opponent, from its games in the order they were paired.
    std::map<std::string, ArenaWaiting> free;
    int active = 0;
    for (const auto& e : entrants_) {
        if (!e.active) continue;
        ++active;
        if (!playing(e.id)) free[e.id] = {e.id, rank[e.id], {}, std::nullopt};
    }
    for (const auto& g : games_)
        for (const Side s : {Side::Silver, Side::Bronze}) {
            const auto it = free.find(s == Side::Silver ? g.silver : g.bronze);
            if (it == free.end()) continue;
            it->second.last_opponent = s == Side::Silver ? g.bronze : g.silver;
            if (g.result || !g.ended) it->second.sides.played.push_back(s);
        }
    std::vector<ArenaWaiting> waiting;
    for (auto& [id, w] : free) waiting.push_back(std::move(w));
    for (const auto& p : pair_arena(std::move(waiting), active == 2)) {
        out.make.push_back(games_.size());
        games_.push_back({.silver = p.silver, .bronze = p.bronze, .paired_at = now});
    }
}

void Tournament::next_round(std::int64_t now, Steps& out) {
    if (round_ > 0 && now < *next_due()) return;
    std::vector<Entrant> active;
    for (const auto& e : entrants_)
        if (e.active) active.push_back(e);
    if (round_ >= settings_.rounds || active.size() < 2) {
        phase_ = Phase::Finished;
        out.finished = true;
        return;
    }
    ++round_;
    out.round = round_;
    const SwissPairing p = pair_swiss(swiss_players(active, swiss_record()));
    for (const auto& g : p.games) {
        out.make.push_back(games_.size());
        games_.push_back(
            {.round = round_, .silver = g.silver, .bronze = g.bronze, .paired_at = now});
    }
    if (p.bye) {
        byes_.push_back({round_, *p.bye});
        out.bye = p.bye;
    }
}

SwissRecord Tournament::swiss_record() const {
    SwissRecord r;
    for (const auto& g : games_) r.games.push_back({g.round, g.silver, g.bronze, g.result});
    r.byes = byes_;
    return r;
}

std::vector<SwissStanding> Tournament::swiss_standings() const {
    return tournament::swiss_standings(entrants_, swiss_record());
}

std::vector<ArenaStanding> Tournament::arena_standings() const {
    // The games that count, in the order they ended (streaks run in that order).
    std::vector<const TournamentGame*> counted;
    for (const auto& g : games_)
        if (g.ended && g.result && g.ended_at <= arena_end()) counted.push_back(&g);
    std::stable_sort(
        counted.begin(), counted.end(),
        [](const TournamentGame* a, const TournamentGame* b) { return a->ended_at < b->ended_at; });
    std::vector<ArenaGame> record;
    for (const TournamentGame* g : counted)
        record.push_back(
            {g->silver, g->bronze, *g->result, g->turns, g->silver_berserk, g->bronze_berserk});
    return tournament::arena_standings(entrants_, record);
}

}  // namespace tf::server::tournament
