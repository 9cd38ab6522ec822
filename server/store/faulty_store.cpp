#include "server/store/faulty_store.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace tf::server {

FaultyStore::FaultyStore(std::unique_ptr<Store> inner, std::string control_file)
    : inner_(std::move(inner)), control_(std::move(control_file)) {
    delay_thread_ = std::thread([this] {
        std::unique_lock lock(dm_);
        for (;;) {
            dcv_.wait(lock, [&] { return stop_ || !delayed_.empty(); });
            if (delayed_.empty()) return;
            auto [due, f] = std::move(delayed_.front());
            delayed_.pop_front();
            lock.unlock();
            std::this_thread::sleep_until(due);
            f();
            lock.lock();
            --delayed_pending_;
        }
    });
}

FaultyStore::~FaultyStore() {
    {
        std::lock_guard lock(dm_);
        stop_ = true;
    }
    dcv_.notify_all();
    delay_thread_.join();
}

void FaultyStore::set(const Faults& f) {
    std::lock_guard lock(m_);
    faults_ = f;
}

Faults FaultyStore::current() {
    std::vector<StoredPlayer> flush;
    Faults f;
    {
        std::lock_guard lock(m_);
        struct stat st {};
        if (!control_.empty() && ::stat(control_.c_str(), &st) == 0) {
            // File times are coarse (a few ms): a file replaced within the same tick is told
            // apart by its inode and size too.
            auto key =
                std::make_tuple(std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                                std::uint64_t(st.st_ino), std::int64_t(st.st_size));
            if (key != control_key_) {
                control_key_ = key;
                Faults n;
                std::ifstream in(control_);
                std::string line;
                while (std::getline(in, line)) {
                    auto eq = line.find('=');
                    if (eq == std::string::npos) continue;
                    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
                    if (k == "write")
                        n.write = v == "fail"    ? Faults::Write::Fail
                                  : v == "fsync" ? Faults::Write::Fsync
                                                 : Faults::Write::Ok;
                    else if (k == "reads")
                        n.reads_fail = v == "fail";
                    else if (k == "commit_delay_ms")
                        n.commit_delay_ms = std::atoi(v.c_str());
                }
                spdlog::warn("fault injection: write={} reads={} commit_delay_ms={}",
                             n.write == Faults::Write::Ok     ? "ok"
                             : n.write == Faults::Write::Fail ? "fail"
                                                              : "fsync",
                             n.reads_fail ? "fail" : "ok", n.commit_delay_ms);
                faults_ = n;
            }
        }
        f = faults_;
        if (f.write != Faults::Write::Fail) flush.swap(held_);
    }
    for (auto& p : flush) inner_->add_player(std::move(p));
    return f;
}

void FaultyStore::later(int delay_ms, std::function<void()> f) {
    {
        std::lock_guard lock(dm_);
        ++delayed_pending_;
        delayed_.emplace_back(
            std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms), std::move(f));
    }
    dcv_.notify_one();
}

void FaultyStore::commit(GameWrite w, Done done) {
    Faults f = current();
    auto report = [this, delay = f.commit_delay_ms,
                   done = std::move(done)](std::optional<std::string> err) mutable {
        if (delay <= 0) return done(std::move(err));
        later(delay, [done = std::move(done), err = std::move(err)] { done(err); });
    };
    switch (f.write) {
        case Faults::Write::Fail:
            return report("injected fault: the write failed (disk full)");
        case Faults::Write::Fsync:
            return inner_->commit(std::move(w), [report](std::optional<std::string> err) mutable {
                report(err ? err : "injected fault: fsync failed after the write");
            });
        case Faults::Write::Ok:
            return inner_->commit(std::move(w), std::move(report));
    }
}

void FaultyStore::add_player(StoredPlayer p, Done done) {
    if (current().write == Faults::Write::Fail) {
        {
            std::lock_guard lock(m_);
            held_.push_back(std::move(p));
        }
        if (done) done("injected fault: the write failed (disk full)");
        return;
    }
    inner_->add_player(std::move(p), std::move(done));
}

void FaultyStore::write_account(AccountWrite w, std::function<void(AccountResult)> done) {
    switch (current().write) {
        case Faults::Write::Fail:
            return done({false, false, true, "injected fault: the write failed (disk full)"});
        case Faults::Write::Fsync:
            return inner_->write_account(std::move(w), [done](AccountResult r) {
                if (r.ok) r = {false, false, true, "injected fault: fsync failed after the write"};
                done(r);
            });
        case Faults::Write::Ok:
            return inner_->write_account(std::move(w), std::move(done));
    }
}

template <class T>
bool FaultyStore::failed(Executor ex, Then<T>& then) {
    if (!current().reads_fail) return false;
    Read<T> r;
    r.error = "injected fault: the read failed (I/O error)";
    r.fault = true;
    boost::asio::post(ex, [then = std::move(then), r = std::move(r)]() mutable { then(r); });
    return true;
}

void FaultyStore::read_player(std::string selector, Executor ex,
                              Then<std::optional<StoredPlayer>> then) {
    if (!failed(ex, then)) inner_->read_player(std::move(selector), ex, std::move(then));
}
void FaultyStore::read_code_taken(std::string code, Executor ex, Then<bool> then) {
    if (!failed(ex, then)) inner_->read_code_taken(std::move(code), ex, std::move(then));
}
void FaultyStore::read_game(std::string code, Executor ex, Then<std::optional<GameRows>> then) {
    if (!failed(ex, then)) inner_->read_game(std::move(code), ex, std::move(then));
}
void FaultyStore::read_page(GameQuery q, Executor ex, Then<GamePage> then) {
    if (!failed(ex, then)) inner_->read_page(std::move(q), ex, std::move(then));
}
void FaultyStore::read_account(std::string username, Executor ex,
                               Then<std::optional<StoredAccount>> then) {
    if (!failed(ex, then)) inner_->read_account(std::move(username), ex, std::move(then));
}
void FaultyStore::read_ratings(std::string player_id, Executor ex,
                               Then<std::vector<StoredRating>> then) {
    if (!failed(ex, then)) inner_->read_ratings(std::move(player_id), ex, std::move(then));
}
void FaultyStore::read_leaderboard(std::string category, int limit, std::int64_t active_since_ms,
                                   bool bots, Executor ex, Then<std::vector<LeaderRow>> then) {
    if (!failed(ex, then))
        inner_->read_leaderboard(std::move(category), limit, active_since_ms, bots, ex,
                                 std::move(then));
}
void FaultyStore::read_profile(std::string username, int recent, std::string viewer, Executor ex,
                               Then<std::optional<PlayerProfile>> then) {
    if (!failed(ex, then))
        inner_->read_profile(std::move(username), recent, std::move(viewer), ex, std::move(then));
}
void FaultyStore::read_unfinished(Executor ex, Then<std::vector<StoredGame>> then) {
    if (!failed(ex, then)) inner_->read_unfinished(ex, std::move(then));
}
std::size_t FaultyStore::pending() {
    std::lock_guard lock(dm_);
    return inner_->pending() + delayed_pending_;
}
bool FaultyStore::healthy() {
    return current().write == Faults::Write::Ok && inner_->healthy();
}

}  // namespace tf::server
