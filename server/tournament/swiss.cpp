#include "server/tournament/swiss.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace tf::server::tournament {

std::vector<SwissPlayer> swiss_players(const std::vector<Entrant>& entrants,
                                       const SwissRecord& record) {
    std::vector<SwissPlayer> out;
    std::map<std::string, std::size_t> at;
    for (const auto& e : entrants) {
        at[e.id] = out.size();
        out.push_back({.id = e.id, .rating = e.rating});
    }
    const auto find = [&](const std::string& id) -> SwissPlayer* {
        const auto it = at.find(id);
        return it == at.end() ? nullptr : &out[it->second];
    };
    for (const auto& g : record.games) {
        for (const Side s : {Side::Silver, Side::Bronze}) {
            SwissPlayer* p = find(s == Side::Silver ? g.silver : g.bronze);
            if (!p) continue;
            p->met.insert(s == Side::Silver ? g.bronze : g.silver);
            p->sides.played.push_back(s);
            if (g.result) p->score += half_points(*g.result, s);
        }
    }
    for (const auto& b : record.byes) {
        if (SwissPlayer* p = find(b.player)) {
            p->score += 2;
            p->had_bye = true;
        }
    }
    return out;
}

namespace {

// Best first: score, then rating, then id (a fixed order for equal players).
bool ranks_before(const SwissPlayer& a, const SwissPlayer& b) {
    return std::tie(b.score, b.rating, a.id) < std::tie(a.score, a.rating, b.id);
}

// One search for a complete pairing of everyone but the bye (players ranked best first).
// The best-ranked unpaired player takes the first candidate that lets the rest pair too.
class Search {
  public:
    Search(const std::vector<SwissPlayer>& ps, bool repeats, bool clashes, long& budget)
        : ps_(ps), repeats_(repeats), clashes_(clashes), budget_(budget), used_(ps.size(), false) {}

    std::optional<std::vector<std::pair<int, int>>> run(int bye) {
        if (bye >= 0) used_[std::size_t(bye)] = true;
        if (!step()) return std::nullopt;
        return pairs_;
    }

  private:
    bool met(int a, int b) const { return ps_[std::size_t(a)].met.count(ps_[std::size_t(b)].id); }
    bool clash(int a, int b) const {
        return side_conflict(ps_[std::size_t(a)].sides, ps_[std::size_t(b)].sides);
    }

    // p's opponents in the order the Dutch system tries them: its score group's bottom half
    // from the natural partner down, then the group's top half from the middle up, then the
    // lower groups in rank order (p floats down). Allowed departures (a repeat, a side clash)
    // come after every candidate without one.
    std::vector<int> candidates(int p) const {
        const int n = int(ps_.size());
        std::vector<int> group;
        for (int i = p; i < n; ++i)
            if (!used_[std::size_t(i)] && ps_[std::size_t(i)].score == ps_[std::size_t(p)].score)
                group.push_back(i);
        const std::size_t half = group.size() / 2;
        // (tier, minus the score for lower groups, position): the natural order.
        std::vector<std::tuple<int, int, int, int, int, int>> keyed;
        const auto add = [&](int c, int tier, int score, int pos) {
            const bool repeat = met(p, c), clashing = clash(p, c);
            if (repeat && !repeats_) return;
            if (clashing && !clashes_) return;
            keyed.emplace_back(repeat, tier, -score, clashing, pos, c);
        };
        for (std::size_t i = half; i < group.size(); ++i)
            if (group[i] != p) add(group[i], 0, 0, int(i));
        for (std::size_t i = half; i-- > 1;) add(group[i], 1, 0, int(half - i));
        for (int i = p + 1; i < n; ++i)
            if (!used_[std::size_t(i)] && ps_[std::size_t(i)].score < ps_[std::size_t(p)].score)
                add(i, 2, ps_[std::size_t(i)].score, i);
        std::sort(keyed.begin(), keyed.end());
        std::vector<int> out;
        for (const auto& k : keyed) out.push_back(std::get<5>(k));
        return out;
    }

    bool step() {
        int p = 0;
        while (p < int(ps_.size()) && used_[std::size_t(p)]) ++p;
        if (p == int(ps_.size())) return true;
        if (--budget_ < 0) return false;
        used_[std::size_t(p)] = true;
        for (const int c : candidates(p)) {
            used_[std::size_t(c)] = true;
            pairs_.emplace_back(p, c);
            if (step()) return true;
            pairs_.pop_back();
            used_[std::size_t(c)] = false;
            if (budget_ < 0) break;
        }
        used_[std::size_t(p)] = false;
        return false;
    }

    const std::vector<SwissPlayer>& ps_;
    const bool repeats_, clashes_;
    long& budget_;
    std::vector<bool> used_;
    std::vector<std::pair<int, int>> pairs_;
};

// Search steps for one round: enough for the hard cases of a few hundred players; past it
// the pairing gives up an absolute criterion (docs/TOURNAMENTS.md "When a round cannot pair").
constexpr long kBudget = 200'000;

}  // namespace

SwissPairing pair_swiss(std::vector<SwissPlayer> players) {
    std::sort(players.begin(), players.end(), ranks_before);
    const int n = int(players.size());
    SwissPairing out;
    if (n < 2) {
        if (n == 1) out.bye = players[0].id;
        return out;
    }
    // Who may sit out, lowest ranked first: those without a bye yet, then (if nothing else
    // pairs) those with one.
    std::vector<int> fresh, again;
    if (n % 2 == 1)
        for (int i = n; i-- > 0;) (players[std::size_t(i)].had_bye ? again : fresh).push_back(i);
    long budget = kBudget;
    std::optional<std::vector<std::pair<int, int>>> found;
    int bye = -1;
    // Criteria given up in this order, only when nothing pairs without: side clashes, a second
    // bye, repeats. The last try (everything allowed) pairs at its first attempt.
    for (const auto& [repeats, second_bye, clashes] :
         {std::tuple{false, false, false}, std::tuple{false, false, true},
          std::tuple{false, true, true}, std::tuple{true, true, true}}) {
        std::vector<int> byes{-1};
        if (n % 2 == 1) {
            byes = second_bye ? again : fresh;
            if (repeats) byes.insert(byes.begin(), fresh.begin(), fresh.end());
        }
        long unlimited = kBudget;
        for (const int b : byes) {
            found = Search(players, repeats, clashes, repeats ? unlimited : budget).run(b);
            if (found) {
                bye = b;
                break;
            }
        }
        if (found) break;
    }
    if (!found) return out;  // cannot happen: the last try pairs anyone with anyone
    if (bye >= 0) out.bye = players[std::size_t(bye)].id;
    for (const auto& [a, b] : *found) {
        const SwissPlayer &hi = players[std::size_t(a)], &lo = players[std::size_t(b)];
        if (hi.met.count(lo.id)) ++out.repeats;
        if (side_conflict(hi.sides, lo.sides)) ++out.side_clashes;
        const Side fresh = out.games.size() % 2 == 0 ? Side::Silver : Side::Bronze;
        if (side_of_higher(hi.sides, lo.sides, fresh) == Side::Silver)
            out.games.push_back({hi.id, lo.id});
        else
            out.games.push_back({lo.id, hi.id});
    }
    return out;  // pairs were made best ranked first: board order
}

std::vector<SwissStanding> swiss_standings(const std::vector<Entrant>& entrants,
                                           const SwissRecord& record) {
    std::map<std::string, SwissStanding> by_id;
    for (const auto& e : entrants)
        by_id[e.id] = {.id = e.id, .rating = e.rating, .active = e.active};
    for (const auto& g : record.games) {
        if (!g.result) continue;
        for (const Side s : {Side::Silver, Side::Bronze}) {
            const auto it = by_id.find(s == Side::Silver ? g.silver : g.bronze);
            if (it == by_id.end()) continue;
            const int h = half_points(*g.result, s);
            it->second.score += h;
            ++it->second.played;
            ++(h == 2 ? it->second.wins : h == 1 ? it->second.draws : it->second.losses);
        }
    }
    for (const auto& b : record.byes) {
        const auto it = by_id.find(b.player);
        if (it == by_id.end()) continue;
        it->second.score += 2;
        ++it->second.byes;
    }
    // Tie-breaks from the opponents' final scores (games played only: a bye adds nothing).
    const auto score_of = [&](const std::string& id) {
        const auto it = by_id.find(id);
        return it == by_id.end() ? 0 : it->second.score;
    };
    for (const auto& g : record.games) {
        if (!g.result) continue;
        for (const Side s : {Side::Silver, Side::Bronze}) {
            const auto it = by_id.find(s == Side::Silver ? g.silver : g.bronze);
            if (it == by_id.end()) continue;
            const int opp = score_of(s == Side::Silver ? g.bronze : g.silver);
            const int h = half_points(*g.result, s);
            it->second.buchholz += opp;
            it->second.sonneborn += h * opp;  // a win 2 × the score, a draw 1 × (quarters)
        }
    }
    std::vector<SwissStanding> out;
    for (auto& [id, s] : by_id) out.push_back(std::move(s));
    std::sort(out.begin(), out.end(), [](const SwissStanding& a, const SwissStanding& b) {
        return std::tie(b.score, b.buchholz, b.sonneborn, b.rating, a.id) <
               std::tie(a.score, a.buchholz, a.sonneborn, a.rating, b.id);
    });
    for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = int(i) + 1;
    return out;
}

namespace {

std::string points(int halves) {
    return std::to_string(halves / 2) + (halves % 2 ? ".5" : "");
}

std::string quarters(int q) {
    static const char* const frac[] = {"", ".25", ".5", ".75"};
    return std::to_string(q / 4) + frac[q % 4];
}

std::string result_text(const std::optional<GameResult>& r) {
    if (!r) return "*";
    switch (*r) {
        case GameResult::SilverWins:
            return "1-0";
        case GameResult::BronzeWins:
            return "0-1";
        case GameResult::Draw:
            break;
    }
    return "½-½";
}

}  // namespace

std::string swiss_report(const std::string& name, const std::vector<Entrant>& entrants,
                         const SwissRecord& record) {
    std::string out = name + "\n\nStandings (score, Buchholz, Sonneborn-Berger)\n";
    for (const auto& s : swiss_standings(entrants, record)) {
        out += std::to_string(s.rank) + ". " + s.id + "  " + points(s.score) + "  " +
               points(s.buchholz) + "  " + quarters(s.sonneborn) + "  (+" + std::to_string(s.wins) +
               " =" + std::to_string(s.draws) + " -" + std::to_string(s.losses) +
               (s.byes ? ", bye " + std::to_string(s.byes) : "") + ", rating " +
               std::to_string(s.rating) + (s.active ? "" : ", withdrew") + ")\n";
    }
    int rounds = 0;
    for (const auto& g : record.games) rounds = std::max(rounds, g.round);
    for (const auto& b : record.byes) rounds = std::max(rounds, b.round);
    for (int r = 1; r <= rounds; ++r) {
        out += "\nRound " + std::to_string(r) + " (silver first)\n";
        int board = 0;
        for (const auto& g : record.games)
            if (g.round == r)
                out += std::to_string(++board) + ". " + g.silver + " " + result_text(g.result) +
                       " " + g.bronze + "\n";
        for (const auto& b : record.byes)
            if (b.round == r) out += "bye: " + b.player + "\n";
    }
    return out;
}

}  // namespace tf::server::tournament
