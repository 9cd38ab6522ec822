// A store that keeps everything in memory, with the same semantics as the SQLite store: one
// operation applies whole or not at all, a duplicate journal version or an unknown game fails it.
// The fake behind room tests and the store contract suite; nothing survives the process.
#pragma once

#include <algorithm>
#include <map>
#include <mutex>

#include "server/store.h"

namespace tf::server {

class MemoryStore : public Store {
  public:
    void commit(GameWrite w, Done done) override;  // `done` runs before commit() returns
    void add_player(StoredPlayer p) override;
    std::optional<StoredPlayer> player_by_selector(const std::string& selector) override;
    bool code_taken(const std::string& code) override;
    std::vector<StoredGame> unfinished() override;
    std::optional<StoredGame> game(const std::string& code) override;
    std::vector<JournalRow> journal(const std::string& code) override;
    GamePage list(const GameQuery& q) override;
    void quarantine(const std::string& code, const std::string& why) override;
    std::size_t pending() override { return 0; }
    bool healthy() override { return true; }
    Stats stats() override;

  private:
    std::mutex m_;
    std::map<std::string, StoredPlayer> players_;                       // by selector
    std::map<std::string, std::pair<std::int64_t, StoredGame>> games_;  // code -> (id, row)
    std::map<std::string, std::map<std::int64_t, JournalRow>> journal_;
    std::int64_t next_id_ = 1;
    Stats stats_;
};

}  // namespace tf::server
