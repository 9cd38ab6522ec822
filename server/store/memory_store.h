// A store that keeps everything in memory, with the same semantics as the SQLite store: one
// operation applies whole or not at all, a duplicate journal version or an unknown game fails it.
// The fake behind room tests and the store contract suite; nothing survives the process.
#pragma once

#include <algorithm>
#include <map>
#include <mutex>

#include "server/store/store.h"

namespace tf::server {

class MemoryStore : public BlockingReads {
  public:
    void commit(GameWrite w, Done done) override;  // `done` runs before commit() returns
    void add_player(StoredPlayer p, Done done) override;
    void write_account(AccountWrite w, std::function<void(AccountResult)> done) override;
    std::size_t pending() override { return 0; }
    bool healthy() override { return true; }
    Stats stats() override;

  protected:
    // On the caller's thread (reads_on() empty): nothing here waits.
    std::optional<StoredPlayer> load_player(const std::string& selector) override;
    std::optional<StoredAccount> load_account(const std::string& username) override;
    std::vector<StoredRating> load_ratings(const std::string& player_id) override;
    // No roles here: no bots (`bots` lists nobody).
    std::vector<LeaderRow> load_leaderboard(const std::string& category, int limit,
                                            std::int64_t active_since_ms, bool bots) override;
    std::optional<PlayerProfile> load_profile(const std::string& username, int recent,
                                              const std::string& viewer) override;
    bool load_code_taken(const std::string& code) override;
    std::vector<StoredGame> load_unfinished() override;
    std::optional<GameRows> load_game(const std::string& code) override;
    GamePage load_page(const GameQuery& q) override;
    void mark_quarantined(const std::string& code, const std::string& why) override;

  private:
    // A rated game's rating rows, applied once per game (m_ held).
    void rate(const std::string& code, RateGame& r);
    struct Token {
        std::string player_id, secret_hash;
    };
    struct HistoryRow {
        std::string code;
        StoredRating before, after;
    };
    std::mutex m_;
    std::map<std::string, std::string> names_;                            // player id -> name
    std::map<std::string, Token> tokens_;                                 // by selector
    std::map<std::string, StoredAccount> accounts_;                       // by player id
    std::map<std::string, std::string> account_keys_;                     // username key -> id
    std::map<std::string, std::map<std::string, StoredRating>> ratings_;  // id -> category ->
    std::map<std::string, std::vector<HistoryRow>> history_;              // id -> oldest first
    std::map<std::string, std::pair<std::int64_t, StoredGame>> games_;    // code -> (id, row)
    std::map<std::string, std::map<std::int64_t, JournalRow>> journal_;
    std::int64_t next_id_ = 1;
    Stats stats_;
};

}  // namespace tf::server
