// WAL checkpoints, out of the commits' way (server/store/sqlite_store.cpp's writer).
//
// SQLite's automatic checkpoint copies the log's pages into the database file and fdatasyncs
// it inside the commit that takes the log past 1,000 pages: a 3-5 ms stall every ~300 commits
// at 2,000 moves/s, the durable p99's tail. A checkpoint on a thread of its own alone never
// lets the log restart under a steady load (a write lands during every checkpoint, so the log
// is never wholly copied: tried earlier, the checkpoints ran back to back). So the work is
// split: past kPages the checkpointer copies everything committed so far on its own connection
// (PASSIVE: it waits for nobody); once it is done, the writer copies the few pages committed
// meanwhile, after its batch's answers went out (finish()), and the next transaction restarts
// the log from its start. Past kCap pages (the checkpointer failing or far behind) the writer
// copies all of it itself, as SQLite would. A longer log means fewer checkpoints (each copies a
// page once however often it changed) and fewer commits whose fdatasync queues behind one: the
// durable p99 at 2,000 moves/s was ~2.0 ms at 1,000 pages, ~1.5 at 4,000, ~1.1 at 8,000 (32 MB
// of log at most, before the cap's 128 MB).
#pragma once

#include <sqlite3.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "server/store/sqlite_store.h"

namespace tf::server {

class WalCheckpointer {
  public:
    static constexpr int kPages = 8000;
    static constexpr int kCap = 32000;

    // Starts the checkpointer thread; its connection to `path` opens when first needed.
    WalCheckpointer(std::string path, SyncLevel sync);
    ~WalCheckpointer();
    WalCheckpointer(const WalCheckpointer&) = delete;
    WalCheckpointer& operator=(const WalCheckpointer&) = delete;

    // Follows the log of the writer connection `wr` (SQLite's WAL hook): call on every
    // connection the writer opens.
    void watch(sqlite3* wr);
    // Whether the writer has a checkpoint to finish (cheap; writer thread, after a batch).
    bool due() const { return state_ == State::Done || wal_pages_ >= kCap; }
    // The writer's part (writer thread, `wr` held): the pages committed since the checkpointer
    // copied, or all of it past the cap.
    void finish(sqlite3* wr);

  private:
    enum class State { Idle, Running, Done };
    static int on_wal(void* self, sqlite3*, const char*, int pages);
    void raise();
    void run();

    const std::string path_;
    const SyncLevel sync_;
    std::atomic<State> state_{State::Idle};
    std::atomic<pid_t> tid_{0};  // the checkpointer's thread id, for raise()
    bool raised_ = false;        // writer thread: raised during this checkpoint
    std::atomic<int> wal_pages_{0};
    std::mutex m_;
    std::condition_variable cv_;
    bool wanted_ = false, stop_ = false;
    std::thread thread_;  // last: started once everything else is there
};

}  // namespace tf::server
