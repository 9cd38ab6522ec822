#include "server/tournament/arena.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tf::server::tournament {

std::vector<ArenaStanding> arena_standings(const std::vector<Entrant>& entrants,
                                           const std::vector<ArenaGame>& record) {
    std::map<std::string, ArenaStanding> by_id;
    std::map<std::string, long> opponents_rating;  // the sum, for the performance
    std::map<std::string, int> streak;             // wins in a row
    for (const auto& e : entrants)
        by_id[e.id] = {.id = e.id, .rating = e.rating, .active = e.active};
    const auto rating_of = [&](const std::string& id) {
        const auto it = by_id.find(id);
        return it == by_id.end() ? 1500 : it->second.rating;
    };
    for (const auto& g : record) {
        for (const Side s : {Side::Silver, Side::Bronze}) {
            const std::string& id = s == Side::Silver ? g.silver : g.bronze;
            const auto it = by_id.find(id);
            if (it == by_id.end()) continue;
            ArenaStanding& st = it->second;
            const int h = half_points(g.result, s);
            const bool fire = streak[id] >= 2;
            SheetEntry e{.fire = fire, .result = g.result, .side = s};
            if (h == 2) {
                e.points = fire ? 4 : 2;
                const bool berserk = s == Side::Silver ? g.silver_berserk : g.bronze_berserk;
                if (berserk && g.turns >= kBerserkMinTurns) {
                    ++e.points;
                    e.berserk = true;
                    ++st.berserks;
                }
                ++streak[id];
                ++st.wins;
            } else {
                if (h == 1 && g.turns >= kEarlyDrawTurns) e.points = fire ? 2 : 1;
                streak[id] = 0;
                ++(h == 1 ? st.draws : st.losses);
            }
            st.points += e.points;
            ++st.played;
            opponents_rating[id] += rating_of(s == Side::Silver ? g.bronze : g.silver);
            st.sheet.push_back(e);
        }
    }
    std::vector<ArenaStanding> out;
    for (auto& [id, st] : by_id) {
        st.fire = streak[id] >= 2;
        st.performance =
            st.played == 0 ? st.rating
                           : int((opponents_rating[id] + 500L * (st.wins - st.losses)) / st.played);
        out.push_back(std::move(st));
    }
    std::sort(out.begin(), out.end(), [](const ArenaStanding& a, const ArenaStanding& b) {
        return std::tie(b.points, b.performance, b.rating, a.id) <
               std::tie(a.points, a.performance, a.rating, b.id);
    });
    for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = int(i) + 1;
    return out;
}

std::vector<ArenaPair> pair_arena(std::vector<ArenaWaiting> waiting, bool rematch_if_alone) {
    std::sort(waiting.begin(), waiting.end(), [](const ArenaWaiting& a, const ArenaWaiting& b) {
        return std::tie(a.rank, a.id) < std::tie(b.rank, b.id);
    });
    const auto again = [](const ArenaWaiting& a, const ArenaWaiting& b) {
        return a.last_opponent == b.id || b.last_opponent == a.id;
    };
    std::vector<bool> paired(waiting.size(), false);
    std::vector<ArenaPair> out;
    const auto seat = [&](std::size_t i, std::size_t j) {
        paired[i] = paired[j] = true;
        const ArenaWaiting &hi = waiting[i], &lo = waiting[j];
        if (side_of_higher(hi.sides, lo.sides) == Side::Silver)
            out.push_back({hi.id, lo.id});
        else
            out.push_back({lo.id, hi.id});
    };
    for (std::size_t i = 0; i < waiting.size(); ++i) {
        if (paired[i]) continue;
        for (std::size_t j = i + 1; j < waiting.size(); ++j) {
            if (paired[j] || again(waiting[i], waiting[j])) continue;
            seat(i, j);
            break;
        }
    }
    // Two left, who just met: again only when the tournament has nobody else for them.
    if (rematch_if_alone && waiting.size() == 2 && !paired[0]) seat(0, 1);
    return out;
}

}  // namespace tf::server::tournament
