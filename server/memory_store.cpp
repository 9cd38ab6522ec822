#include "server/memory_store.h"

#include "server/io_thread.h"

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
        if (!error) {
            if (w.create) games_[w.code] = {next_id_++, *w.create};
            for (auto& r : w.rows) rows[r.version] = std::move(r);
            if (w.update) games_[w.code].second = std::move(*w.update);
        } else {
            ++stats_.failures;
        }
    }
    if (done) done(error);
}

void MemoryStore::add_player(StoredPlayer p) {
    std::lock_guard lock(m_);
    players_.try_emplace(p.selector, std::move(p));
}

std::optional<StoredPlayer> MemoryStore::player_by_selector(const std::string& selector) {
    assert_off_io_thread();
    std::lock_guard lock(m_);
    auto it = players_.find(selector);
    if (it == players_.end()) return std::nullopt;
    return it->second;
}

bool MemoryStore::code_taken(const std::string& code) {
    assert_off_io_thread();
    std::lock_guard lock(m_);
    return games_.count(code) > 0;
}

std::vector<StoredGame> MemoryStore::unfinished() {
    assert_off_io_thread();
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

std::optional<StoredGame> MemoryStore::game(const std::string& code) {
    assert_off_io_thread();
    std::lock_guard lock(m_);
    auto it = games_.find(code);
    if (it == games_.end()) return std::nullopt;
    return it->second.second;
}

std::vector<JournalRow> MemoryStore::journal(const std::string& code) {
    assert_off_io_thread();
    std::lock_guard lock(m_);
    std::vector<JournalRow> out;
    if (auto it = journal_.find(code); it != journal_.end())
        for (auto& [v, r] : it->second) out.push_back(r);
    return out;
}

GamePage MemoryStore::list(const GameQuery& q) {
    assert_off_io_thread();
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

void MemoryStore::quarantine(const std::string& code, const std::string&) {
    std::lock_guard lock(m_);
    if (auto it = games_.find(code); it != games_.end()) it->second.second.status = "quarantined";
}

Store::Stats MemoryStore::stats() {
    std::lock_guard lock(m_);
    return stats_;
}

}  // namespace tf::server
