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
    void add_player(StoredPlayer p, Done done) override;
    void write_account(AccountWrite w, std::function<void(AccountResult)> done) override;
    // Reads fail while `reads=fail`, otherwise the inner store answers.
    void read_player(std::string selector, Executor ex,
                     Then<std::optional<StoredPlayer>> then) override;
    void read_code_taken(std::string code, Executor ex, Then<bool> then) override;
    void read_game(std::string code, Executor ex, Then<std::optional<GameRows>> then) override;
    void read_page(GameQuery q, Executor ex, Then<GamePage> then) override;
    void read_account(std::string username, Executor ex,
                      Then<std::optional<StoredAccount>> then) override;
    void read_ratings(std::string player_id, Executor ex,
                      Then<std::vector<StoredRating>> then) override;
    void read_leaderboard(std::string category, int limit, std::int64_t active_since_ms, bool bots,
                          Executor ex, Then<std::vector<LeaderRow>> then) override;
    void read_profile(std::string username, int recent, std::string viewer, Executor ex,
                      Then<std::optional<PlayerProfile>> then) override;
    void read_unfinished(Executor ex, Then<std::vector<StoredGame>> then) override;
    void read_open_counts(std::string player_id, std::string address, std::string node, Executor ex,
                          Then<OpenGameCounts> then) override {
        inner_->read_open_counts(std::move(player_id), std::move(address), std::move(node), ex,
                                 std::move(then));
    }
    void write_quarantine(std::string code, std::string why, Done done) override {
        inner_->write_quarantine(std::move(code), std::move(why), std::move(done));
    }
    std::size_t pending() override;
    bool healthy() override;
    Stats stats() override { return inner_->stats(); }
    bool keeps_games() override { return inner_->keeps_games(); }

  private:
    Faults current();  // re-reads the control file when it changed
    // True (and `then` answered with the injected error) when reads fail now.
    template <class T>
    bool failed(Executor ex, Then<T>& then);
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
