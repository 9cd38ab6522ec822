#include "server/store/sqlite_checkpointer.h"

#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/store/sqlite_db.h"

namespace tf::server {

WalCheckpointer::WalCheckpointer(std::string path, SyncLevel sync)
    : path_(std::move(path)), sync_(sync), thread_([this] {
          pthread_setname_np(pthread_self(), "tf-checkpoint");  // as top and perf name it
          run();
      }) {}

WalCheckpointer::~WalCheckpointer() {
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void WalCheckpointer::watch(sqlite3* wr) {
    sqlite3_wal_hook(wr, &WalCheckpointer::on_wal, this);
}

// After each commit (writer thread, inside the commit): the log's size in pages.
int WalCheckpointer::on_wal(void* self, sqlite3*, const char*, int pages) {
    auto* c = static_cast<WalCheckpointer*>(self);
    c->wal_pages_ = pages;
    if (pages >= kPages && c->state_ == State::Idle) {
        c->state_ = State::Running;
        {
            std::lock_guard lock(c->m_);
            c->wanted_ = true;
        }
        c->cv_.notify_one();
    }
    return SQLITE_OK;
}

void WalCheckpointer::finish(sqlite3* wr) {
    int log = 0, copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(wr, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    if (rc == SQLITE_BUSY) return raise();  // still at it: after the next batch
    if (rc != SQLITE_OK) spdlog::debug("store: checkpoint: {}", sqlite3_errmsg(wr));
    wal_pages_ = 0;
    raised_ = false;
    state_ = State::Idle;
}

// The log is at the cap and the checkpointer still holds the checkpoint: it may be starved of
// CPU at SCHED_IDLE (run()), so it goes back to the normal policy until its next checkpoint.
// Lifting a thread out of SCHED_IDLE needs CAP_SYS_NICE (root, as in the Docker image) or an
// RLIMIT_NICE of 20; without them it stays idle, and the log grows past the cap until the
// checkpointer gets the CPU. Writer thread.
void WalCheckpointer::raise() {
    if (wal_pages_ < kCap || raised_) return;
    raised_ = true;
    sched_param normal{};
    const int err = tid_ ? sched_setscheduler(tid_, SCHED_OTHER, &normal) : 0;
    spdlog::debug("store: the log is at {} pages and the checkpointer is behind: {}",
                  wal_pages_.load(),
                  err ? std::string("cannot raise it: ") + std::strerror(errno)
                      : std::string("raised to the normal policy"));
}

// The checkpointer thread: its own connection, opened when first needed. It runs at
// SCHED_IDLE: a checkpoint takes 1.5-4 ms of CPU at 2,000 moves/s, and a thread of the normal
// policy keeps the CPU for its whole slice even when the connections' thread wakes up
// (measured: about 60 moves in 16,000 delayed past 0.8 ms around checkpoints, 30 at
// SCHED_IDLE; docs/BENCHMARKS.md "The third step: the durable tail, move by move"). It goes
// back to SCHED_IDLE before each checkpoint, in case the writer raised it for the last one. On
// a machine with a core to spare it runs there anyway.
void WalCheckpointer::run() {
    tid_ = pid_t(::syscall(SYS_gettid));
    auto to_idle = [] {
        sched_param idle{};
        if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
            spdlog::debug("store: the checkpointer stays at the normal policy");
    };
    to_idle();
    sqlite3* db = nullptr;
    for (;;) {
        {
            std::unique_lock lock(m_);
            cv_.wait(lock, [&] { return stop_ || wanted_; });
            if (stop_) break;
            wanted_ = false;
        }
        to_idle();
        try {
            if (!db) {
                db = sqlite::open_db(path_, SQLITE_OPEN_READWRITE);
                sqlite::exec(db, sqlite::sync_pragma(sync_));
            }
            int log = 0, copied = 0;
            if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) !=
                SQLITE_OK)
                spdlog::debug("store: background checkpoint: {}", sqlite3_errmsg(db));
        } catch (const StoreError& e) {
            spdlog::debug("store: background checkpoint: {}", e.what());
        }
        state_ = State::Done;  // even after a failure: the writer then does it all, as before
    }
    if (db) sqlite3_close(db);
}

}  // namespace tf::server
