// A store that injects faults into another one, for the tests of what a failing disk does to
// the server (docs/ARCHITECTURE.md "Failures"): writes that fail (nothing written), writes that
// are written but reported failed (a failed fsync: the data may be on disk or not), reads that
// fail, and slow commits. Set programmatically (room tests, the store contract suite) or, in the
// server binary, from a control file (--fault-file, for the integration tests only) re-read
// whenever it changes:
//   write=ok|fail|fsync
//   reads=ok|fail
//   commit_delay_ms=N
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "server/store/store.h"

namespace tf::server {

struct Faults {
    enum class Write { Ok, Fail, Fsync };
    Write write = Write::Ok;
    bool reads_fail = false;
    int commit_delay_ms = 0;
};

class FaultyStore : public Store {
  public:
    explicit FaultyStore(std::unique_ptr<Store> inner, std::string control_file = {});
    ~FaultyStore() override;
    void set(const Faults& f);
    Store& inner() { return *inner_; }

    void commit(GameWrite w, Done done) override;
    void add_player(StoredPlayer p) override;
    void write_account(AccountWrite w, std::function<void(AccountResult)> done) override;
    std::optional<StoredPlayer> player_by_selector(const std::string& selector) override;
    std::optional<StoredAccount> account_by_name(const std::string& username) override;
    std::vector<StoredRating> ratings_of(const std::string& player_id) override;
    std::vector<LeaderRow> leaderboard(const std::string& category, int limit,
                                       std::int64_t active_since_ms) override;
    std::optional<PlayerProfile> profile(const std::string& username, int recent,
                                         const std::string& viewer) override;
    bool code_taken(const std::string& code) override;
    std::vector<StoredGame> unfinished() override;
    std::optional<StoredGame> game(const std::string& code) override;
    std::vector<JournalRow> journal(const std::string& code) override;
    GamePage list(const GameQuery& q) override;
    OpenGameCounts open_counts(const std::string& player_id, const std::string& address,
                               const std::string& node) override {
        return inner_->open_counts(player_id, address, node);
    }
    void quarantine(const std::string& code, const std::string& why) override;
    std::size_t pending() override;
    bool healthy() override;
    Stats stats() override { return inner_->stats(); }
    Executor read_executor() override { return inner_->read_executor(); }
    bool keeps_games() override { return inner_->keeps_games(); }

  private:
    Faults current();  // re-reads the control file when it changed
    void check_reads();
    void later(int delay_ms, std::function<void()> f);  // on the delay thread, in order

    std::unique_ptr<Store> inner_;
    const std::string control_;
    std::mutex m_;
    Faults faults_;
    std::tuple<std::int64_t, std::uint64_t, std::int64_t> control_key_{-1, 0, -1};
    std::vector<StoredPlayer> held_;  // players added while writes fail

    std::mutex dm_;
    std::condition_variable dcv_;
    std::deque<std::pair<std::chrono::steady_clock::time_point, std::function<void()>>> delayed_;
    std::size_t delayed_pending_ = 0;
    bool stop_ = false;
    std::thread delay_thread_;
};

}  // namespace tf::server
