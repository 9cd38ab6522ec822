#include "server/store/memory_store.h"

#include "server/base/time.h"
#include "server/store/record_codec.h"

namespace tf::server {

void MemoryStore::commit(GameWrite w, Done done) {
    std::optional<std::string> error;
    {
        std::lock_guard lock(m_);
        ++stats_.commits;
        ++stats_.operations;
        auto game = games_.find(w.code);
        auto& rows = journal_[w.code];
        if (w.create && game != games_.end())
            error = "game " + w.code + " exists";
        else if (!w.create && (w.update || !w.rows.empty()) && game == games_.end())
            error = "no game " + w.code + " to update";
        for (const auto& r : w.rows)
            if (!error && rows.count(r.version))
                error =
                    "journal version " + std::to_string(r.version) + " of " + w.code + " exists";
        if (!error && w.rate)
            for (const auto& id : w.rate->player)
                if (!names_.count(id)) error = "no player " + id + " to rate";
        if (!error) {
            if (w.create) games_[w.code] = {next_id_++, *w.create};
            for (auto& r : w.rows) rows[r.version] = std::move(r);
            if (w.update) games_[w.code].second = std::move(*w.update);
            if (w.rate) rate(w.code, *w.rate);
        } else {
            ++stats_.failures;
        }
    }
    if (done) done(error);
}

void MemoryStore::rate(const std::string& code, RateGame& r) {
    // Once per game: a game already in the players' history is not rated again; the outcome is
    // the one recorded then.
    bool seen = false;
    for (int i = 0; i < 2; ++i)
        for (const auto& h : history_[r.player[i]])
            if (h.code == code) {
                r.outcome->before[i] = h.before;
                r.outcome->after[i] = h.after;
                seen = true;
            }
    if (seen) return;
    StoredRating before[2];
    for (int i = 0; i < 2; ++i) {
        auto& mine = ratings_[r.player[i]];
        auto it = mine.find(r.category);
        if (it != mine.end()) before[i] = it->second;
        before[i].category = r.category;
    }
    *r.outcome = r.rated(before);
    for (int i = 0; i < 2; ++i) {
        ratings_[r.player[i]][r.category] = r.outcome->after[i];
        history_[r.player[i]].push_back({code, r.outcome->before[i], r.outcome->after[i]});
    }
}

void MemoryStore::add_player(StoredPlayer p, Done done) {
    {
        std::lock_guard lock(m_);
        names_.try_emplace(p.id, p.name);
        tokens_.try_emplace(p.selector, Token{p.id, p.secret_hash});
    }
    if (done) done(std::nullopt);
}

void MemoryStore::write_account(AccountWrite w, std::function<void(AccountResult)> done) {
    AccountResult r;
    {
        std::lock_guard lock(m_);
        using K = AccountWrite::Kind;
        auto revoke = [&](const std::string& keep) {
            std::erase_if(tokens_, [&](const auto& t) {
                return t.second.player_id == w.player_id && t.first != keep;
            });
        };
        if (!names_.count(w.player_id)) {
            r.error = "no player " + w.player_id;
        } else if (w.kind == K::Register) {
            const auto key = username_key(w.username);
            if (account_keys_.count(key) || accounts_.count(w.player_id)) {
                r.conflict = true;
                r.error = "the username " + w.username + " is taken";
            } else {
                accounts_[w.player_id] = {w.player_id, w.username, w.pw_hash, epoch_ms()};
                account_keys_[key] = w.player_id;
                names_[w.player_id] = w.username;
                r.ok = true;
            }
        } else if (w.kind == K::AddToken) {
            r.ok = tokens_.try_emplace(w.selector, Token{w.player_id, w.secret_hash}).second;
            if (!r.ok) r.error = "token selector exists";
        } else if (w.kind == K::RevokeTokens) {
            revoke(w.selector);
            r.ok = true;
        } else if (w.kind == K::RevokeToken) {
            auto it = tokens_.find(w.selector);
            if (it != tokens_.end() && it->second.player_id == w.player_id) tokens_.erase(it);
            r.ok = true;
        } else if (w.kind == K::SetPassword) {
            auto it = accounts_.find(w.player_id);
            if (it == accounts_.end()) {
                r.error = "player " + w.player_id + " has no account";
            } else {
                it->second.pw_hash = w.pw_hash;
                revoke(w.selector);
                r.ok = true;
            }
        }
    }
    if (done) done(r);
}

std::optional<StoredPlayer> MemoryStore::load_player(const std::string& selector) {
    std::lock_guard lock(m_);
    auto it = tokens_.find(selector);
    if (it == tokens_.end()) return std::nullopt;
    const auto& id = it->second.player_id;
    auto a = accounts_.find(id);
    return StoredPlayer{id, names_[id], selector, it->second.secret_hash,
                        a == accounts_.end() ? "" : a->second.username};
}

std::optional<StoredAccount> MemoryStore::load_account(const std::string& username) {
    std::lock_guard lock(m_);
    auto k = account_keys_.find(username_key(username));
    if (k == account_keys_.end()) return std::nullopt;
    return accounts_.at(k->second);
}

std::vector<StoredRating> MemoryStore::load_ratings(const std::string& player_id) {
    std::lock_guard lock(m_);
    std::vector<StoredRating> out;
    if (auto it = ratings_.find(player_id); it != ratings_.end())
        for (const auto& [c, r] : it->second) out.push_back(r);
    return out;
}

std::vector<LeaderRow> MemoryStore::load_leaderboard(const std::string& category, int limit,
                                                     std::int64_t active_since_ms, bool bots) {
    std::lock_guard lock(m_);
    std::vector<LeaderRow> out;
    if (bots) return out;
    for (const auto& [id, mine] : ratings_) {
        auto it = mine.find(category);
        auto a = accounts_.find(id);
        if (it == mine.end() || a == accounts_.end()) continue;
        const auto& r = it->second;
        if (r.last_ms < active_since_ms || r.deviation > proto::kProvisionalDeviation) continue;
        out.push_back({a->second.username, r});
    }
    std::sort(out.begin(), out.end(), [](const LeaderRow& x, const LeaderRow& y) {
        return x.rating.rating != y.rating.rating ? x.rating.rating > y.rating.rating
                                                  : x.username < y.username;
    });
    if (int(out.size()) > limit) out.resize(std::size_t(std::max(limit, 0)));
    return out;
}

// A private game is seen by the players seated in it only.
static bool visible(const StoredGame& g, const std::string& viewer) {
    return g.is_public || (!viewer.empty() && (g.seat_id[0] == viewer || g.seat_id[1] == viewer));
}

std::optional<PlayerProfile> MemoryStore::load_profile(const std::string& username, int recent,
                                                       const std::string& viewer) {
    std::lock_guard lock(m_);
    auto k = account_keys_.find(username_key(username));
    if (k == account_keys_.end()) return std::nullopt;
    const std::string& id = k->second;
    PlayerProfile p;
    p.account = accounts_.at(id);
    if (auto it = ratings_.find(id); it != ratings_.end())
        for (const auto& [c, r] : it->second) p.ratings.push_back(r);
    if (auto it = history_.find(id); it != history_.end())
        for (const auto& h : it->second) {
            auto g = games_.find(h.code);
            const bool shown = g == games_.end() || visible(g->second.second, viewer);
            p.history[h.after.category].push_back(
                {h.after.last_ms, h.after.rating, shown ? h.code : std::string()});
        }
    std::vector<std::pair<std::int64_t, const StoredGame*>> mine;
    for (const auto& [code, g] : games_) {
        const StoredGame& row = g.second;
        const int side = row.seat_id[0] == id ? 0 : row.seat_id[1] == id ? 1 : -1;
        if (side < 0) continue;
        if (visible(row, viewer)) mine.push_back({g.first, &row});
        if (row.status != "over") continue;
        auto result = result_of_text(row.result);
        if (!result) continue;
        auto& t = p.as[side];
        if (result->winner == proto::Winner::Draw)
            ++t.draws;
        else if (result->winner == (side == 0 ? proto::Winner::Silver : proto::Winner::Bronze))
            ++t.wins;
        else if (result->winner != proto::Winner::None)
            ++t.losses;
    }
    std::sort(mine.begin(), mine.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [gid, row] : mine) {
        if (int(p.recent.size()) >= recent) break;
        p.recent.push_back(*row);
    }
    return p;
}

bool MemoryStore::load_code_taken(const std::string& code) {
    std::lock_guard lock(m_);
    return games_.count(code) > 0;
}

std::vector<StoredGame> MemoryStore::load_unfinished() {
    std::lock_guard lock(m_);
    std::vector<std::pair<std::int64_t, StoredGame>> by_id;
    for (auto& [code, g] : games_)
        if (g.second.status == "open" || g.second.status == "playing") by_id.push_back(g);
    std::sort(by_id.begin(), by_id.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<StoredGame> out;
    for (auto& [id, g] : by_id) out.push_back(std::move(g));
    return out;
}

std::optional<GameRows> MemoryStore::load_game(const std::string& code) {
    std::lock_guard lock(m_);
    auto it = games_.find(code);
    if (it == games_.end()) return std::nullopt;
    GameRows out{it->second.second, {}};
    if (auto j = journal_.find(code); j != journal_.end())
        for (auto& [v, r] : j->second) out.journal.push_back(r);
    return out;
}

GamePage MemoryStore::load_page(const GameQuery& q) {
    std::lock_guard lock(m_);
    std::vector<std::pair<std::int64_t, StoredGame>> all;
    for (auto& [code, g] : games_) {
        const auto& row = g.second;
        if (q.before > 0 && g.first >= q.before) continue;
        if (q.status == "live" && row.status != "playing") continue;
        if (q.status == "finished" && row.status != "over" && row.status != "aborted") continue;
        if (!q.status.empty() && q.status != "live" && q.status != "finished" &&
            row.status != q.status)
            continue;
        if (!q.player_id.empty() && row.seat_id[0] != q.player_id && row.seat_id[1] != q.player_id)
            continue;
        if (q.viewer && !visible(row, *q.viewer)) continue;
        all.push_back(g);
    }
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    GamePage page;
    for (auto& g : all) {
        if (int(page.games.size()) == q.limit) {
            page.next = page.games.back().first;
            break;
        }
        page.games.push_back(std::move(g));
    }
    return page;
}

void MemoryStore::mark_quarantined(const std::string& code, const std::string&) {
    std::lock_guard lock(m_);
    if (auto it = games_.find(code); it != games_.end()) it->second.second.status = "quarantined";
}

Store::Stats MemoryStore::stats() {
    std::lock_guard lock(m_);
    return stats_;
}

}  // namespace tf::server
