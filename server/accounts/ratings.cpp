#include "server/accounts/ratings.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "server/accounts/glicko2.h"

namespace tf::server {

namespace {

constexpr double kMsPerDay = 24.0 * 3600 * 1000;

glicko2::Rating glicko(const StoredRating& r) {
    return {r.rating, r.deviation, r.volatility};
}

}  // namespace

RateGame::Outcome rate_game(const RateGame& g, const StoredRating before[2]) {
    RateGame::Outcome out;
    for (int i = 0; i < 2; ++i) {
        out.before[i] = before[i];
        out.before[i].category = g.category;
    }
    for (int i = 0; i < 2; ++i) {
        const StoredRating& me = out.before[i];
        const StoredRating& them = out.before[1 - i];
        const double score = i == 0 ? g.silver_score : 1 - g.silver_score;
        const double days =
            me.games == 0 ? 0 : std::max<double>(0, double(g.at_ms - me.last_ms) / kMsPerDay);
        const glicko2::Rating r = glicko2::rate(glicko(me), glicko(them), score, days);
        out.after[i] = {g.category, r.rating, r.deviation, r.volatility, me.games + 1, g.at_ms};
    }
    return out;
}

std::pair<StoredRating, StoredRating> rate_puzzle(const StoredRating& player,
                                                  const StoredRating& puzzle, bool solved,
                                                  std::int64_t at_ms) {
    RateGame g;
    g.category = "puzzle";
    g.silver_score = solved ? 1 : 0;
    g.at_ms = at_ms;
    const StoredRating before[2] = {player, puzzle};
    const RateGame::Outcome out = rate_game(g, before);
    return {out.after[0], out.after[1]};
}

proto::RatingView rating_view(const StoredRating& r, std::int64_t now_ms) {
    const double days =
        r.games == 0 ? 0 : std::max<double>(0, double(now_ms - r.last_ms) / kMsPerDay);
    const double dev = glicko2::deviation_after(glicko(r), days);
    return {int(std::lround(r.rating)), int(std::lround(dev)), r.games,
            dev > proto::kProvisionalDeviation};
}

bool reserved_username(std::string_view username) {
    const std::string k = username_key(username);
    static const char* const exact[] = {"admin", "administrator", "root", "system", "server",
                                        "trunkfield", "staff", "mod", "moderator", "support",
                                        "help", "api", "anonymous", "null", "undefined", "me",
                                        "you", "bot", "guest", "computer", "official",
                                        // the house bots (server/accounts/house_bots.h)
                                        "level1", "level2", "level3", "level4", "level5"};
    for (const char* e : exact)
        if (k == e) return true;
    // guest-1a2b is how guests are named; bot-3 how the computer opponent is.
    for (const char* prefix : {"guest", "bot-", "bot_", "trunkfield"})
        if (k.rfind(prefix, 0) == 0) return true;
    return false;
}

void RatingBook::set(const std::string& player_id, const std::vector<StoredRating>& ratings) {
    std::lock_guard lock(m_);
    auto& mine = by_player_[player_id];
    for (const auto& r : ratings) mine[r.category] = r;
}

void RatingBook::set(const std::string& player_id, const StoredRating& r) {
    std::lock_guard lock(m_);
    by_player_[player_id][r.category] = r;
}

std::optional<StoredRating> RatingBook::get(const std::string& player_id,
                                            const std::string& category) {
    std::lock_guard lock(m_);
    auto p = by_player_.find(player_id);
    if (p == by_player_.end()) return std::nullopt;
    auto r = p->second.find(category);
    if (r == p->second.end()) return std::nullopt;
    return r->second;
}

std::map<std::string, proto::RatingView> RatingBook::views(const std::string& player_id) {
    std::map<std::string, proto::RatingView> out;
    const auto now = epoch_ms();
    std::lock_guard lock(m_);
    if (auto p = by_player_.find(player_id); p != by_player_.end())
        for (const auto& [category, r] : p->second) out[category] = rating_view(r, now);
    return out;
}

proto::RatingView RatingBook::view(const std::string& player_id, const std::string& category) {
    auto r = get(player_id, category);
    StoredRating fresh;
    fresh.category = category;
    return rating_view(r ? *r : fresh, epoch_ms());
}

}  // namespace tf::server
