// A room's operation engine, the durable outbox (docs/ARCHITECTURE.md "Durability"): every
// request and timer runs as one operation on the room's strand; what an operation sends waits
// here, its journal rows (and, the first time, the game's row) are committed to the store as
// one write, and only when the store says they are durable does anything leave — lobby changes
// first, then the players' messages, then a crowd of spectators' in a handler of its own.
// Operations arriving meanwhile wait their turn, so nobody ever sees or acts on an uncommitted
// state. The room hosts it: it tells the engine what to send and store, and is told how each
// commit ended.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/base/participant.h"
#include "server/store/store.h"

namespace tf::server {

using RoomExecutor = boost::asio::strand<boost::asio::io_context::executor_type>;

class RoomOps {
  public:
    // At or above this many messages for spectators in one operation, they go out in a handler
    // of their own after the players'.
    static constexpr std::size_t kCrowd = 64;
    using Who = std::weak_ptr<Participant>;
    struct Out {
        Who to;
        Msg msg;
        bool crowd = false;                                  // to a subscriber without a seat
        std::optional<std::optional<std::string>> ack = {};  // an ack, with its ref
    };
    // What the engine needs of the room it serves.
    class Host {
      public:
        virtual ~Host() = default;
        // The game's row after the operation (what the store's update writes).
        virtual StoredGame stored_row() const = 0;
        // A commit is durable, before its messages go out.
        virtual void saved() = 0;
        // A commit failed: nothing of it was sent (`out` is what would have been, `after` what
        // would have run before); `creating` when it was the game's first write.
        virtual void failed(const std::string& why, const std::vector<Out>& out,
                            const std::vector<std::function<void()>>& after, bool creating) = 0;
        // After every operation or batch of them (the bot may think).
        virtual void idle() = 0;
        // A rated game's end is durable, its ratings applied: after its messages went out.
        virtual void rated(const RateGame::Outcome& outcome) = 0;
        // The room, kept alive by handlers still to run.
        virtual std::shared_ptr<void> keep_alive() = 0;
        // The game was taken over by another node while this one held it (fenced): nothing of
        // a commit that still ends well goes out from here any more.
        virtual bool dropped() const = 0;
    };

    RoomOps(RoomExecutor ex, Store& store, std::string code, Host& host)
        : ex_(std::move(ex)), store_(store), code_(std::move(code)), host_(host) {}

    // Runs `op` now, or once the commit in flight (or a hold) ends. On the room's strand.
    void run(std::function<void()> op);
    // Within an operation: a message, a journal row, the game's first row, a lobby change.
    void send(Out o) { outbox_.push_back(std::move(o)); }
    void journal(JournalRow r) { rows_.push_back(std::move(r)); }
    void create(StoredGame row) { create_ = std::move(row); }
    void rate(RateGame r) { rate_ = std::move(r); }
    void later(std::function<void()> f) { after_.push_back(std::move(f)); }
    // Cluster mode: every write carries the game's owner and ownership epoch (GameWrite).
    void fence(std::string owner, std::int64_t epoch) {
        owner_ = std::move(owner);
        epoch_ = epoch;
    }
    std::int64_t epoch() const { return epoch_; }
    // True while a commit (or a hold) is in flight: operations wait.
    bool busy() const { return busy_; }
    // Holds every operation back (a room reading itself back from the store), until release().
    void hold() { busy_ = true; }
    // Ends the hold; `first` (if any) runs as the next operation, before those that waited.
    void release(std::function<void()> first = {});
    // Outside any operation: `row` written once the store is healthy again, retried every half
    // second for a minute; done once written, or when the store has no such row (or it is
    // another node's now). For a game whose creation failed in doubt (Room::cancel_in_doubt).
    void write_when_healthy(StoredGame row);
    // Messages that were never part of an operation's commit (an error to every watcher):
    // delivered now, in order with what is still pending for a crowd.
    void deliver(std::vector<Out> out);

  private:
    void end();
    void drain();
    void committed(const std::optional<std::string>& error, std::vector<Out>& out,
                   std::vector<std::function<void()>>& after,
                   const std::shared_ptr<RateGame::Outcome>& rated = nullptr);

    RoomExecutor ex_;
    Store& store_;
    const std::string code_;
    Host& host_;
    bool busy_ = false;
    bool creating_ = false;           // the commit in flight inserts the game
    bool committing_ = false;         // inside store_.commit()
    std::function<void()> done_now_;  // its answer, when the store gave it within the call
    std::deque<std::function<void()>> waiting_;
    std::optional<StoredGame> create_;
    std::optional<RateGame> rate_;
    std::vector<JournalRow> rows_;
    std::vector<Out> outbox_;
    std::vector<std::function<void()>> after_;
    int crowd_pending_ = 0;  // crowd deliveries posted and not yet run
    std::string owner_;
    std::int64_t epoch_ = 0;
};

}  // namespace tf::server
