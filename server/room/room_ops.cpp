#include "server/room/room_ops.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/room/delivery_batch.h"

namespace tf::server {

void RoomOps::run(std::function<void()> op) {
    if (busy_) {
        waiting_.push_back(std::move(op));
        return;
    }
    op();
    end();
    drain();  // anything queued meanwhile, when the commit ended within end()
    host_.idle();
}

void RoomOps::release(std::function<void()> first) {
    busy_ = false;
    if (first) waiting_.push_front(std::move(first));
    drain();
    host_.idle();
}

void RoomOps::drain() {
    while (!busy_ && !waiting_.empty()) {
        auto f = std::move(waiting_.front());
        waiting_.pop_front();
        f();
        end();
    }
}

// The end of an operation: nothing to store, and its messages go out at once; or one write for
// all it journaled, and its messages go out when that is durable.
void RoomOps::end() {
    if (!create_ && rows_.empty() && !rate_) {
        std::vector<std::function<void()>> after;
        std::vector<Out> out;
        out.swap(outbox_);
        after.swap(after_);
        committed(std::nullopt, out, after);
        return;
    }
    GameWrite w{code_, std::move(create_), std::move(rows_), host_.stored_row(), std::move(rate_)};
    // A game made in this operation is inserted as the operation leaves it: its events journaled
    // with it (a computer's or a pairing's join) count in the row's version, which a node that
    // takes the game over checks against the journal.
    if (w.create) {
        w.create = std::move(*w.update);
        w.update.reset();
    }
    w.owner = owner_;
    w.epoch = epoch_;
    creating_ = w.create.has_value();
    create_.reset();
    rows_.clear();
    rate_.reset();
    std::shared_ptr<RateGame::Outcome> rated = w.rate ? w.rate->outcome : nullptr;
    busy_ = true;
    committing_ = true;
    store_.commit(std::move(w),
                  [this, keep = host_.keep_alive(), out = std::move(outbox_),
                   after = std::move(after_), rated](std::optional<std::string> err) mutable {
                      // Called once: the outbox moves on rather than being copied (a crowd's is
                      // thousands long).
                      auto done = [this, keep, out = std::move(out), after = std::move(after),
                                   err = std::move(err), rated]() mutable {
                          busy_ = false;
                          committed(err, out, after, rated);
                      };
                      // A store that answered within commit() (--store memory): finished below, in
                      // this handler, rather than in one more trip through the scheduler.
                      // committing_ is only read on the strand.
                      if (ex_.running_in_this_thread() && committing_) {
                          done_now_ = std::move(done);
                          return;
                      }
                      boost::asio::post(ex_, [this, done = std::move(done)]() mutable {
                          done();
                          drain();
                          host_.idle();
                      });
                  });
    committing_ = false;
    outbox_.clear();
    after_.clear();
    if (done_now_) {
        auto done = std::move(done_now_);
        done_now_ = nullptr;
        done();  // run() and drain(), our callers, go on with what waits
    }
}

void RoomOps::committed(const std::optional<std::string>& error, std::vector<Out>& out,
                        std::vector<std::function<void()>>& after,
                        const std::shared_ptr<RateGame::Outcome>& rated) {
    const bool creating = creating_;
    creating_ = false;
    if (error) return host_.failed(*error, out, after, creating);
    // Taken over while this commit was in flight (its answer stalled past the lease): it was
    // durable, but the new owner has its journal rows and answers from them (a request resent
    // to it is acked there); sending here too would answer a request twice.
    if (host_.dropped()) return;
    host_.saved();
    // Lobby changes first: a client that reacts to its ack (a second create_game, welcome after
    // a reconnect) must find the lobby already up to date.
    for (auto& f : after) f();
    deliver(std::move(out));
    if (rated) host_.rated(*rated);
}

// A crowd of spectators gets its messages in a handler of its own, after the players': the
// players' writes are then not queued behind thousands of deliveries. While such a handler is
// pending everything waits behind it, so every recipient's messages keep their order.
void RoomOps::deliver(std::vector<Out> out) {
    // Each recipient's messages of the operation together (a player's ack and event: one
    // write); a crowd's, spectator by spectator, in one handler after the players'.
    auto send = [](std::vector<Out>& msgs, bool crowd) {
        if (crowd) {
            for (auto& o : msgs)
                if (o.crowd)
                    if (auto p = o.to.lock()) p->deliver_all({o.msg});
            return;
        }
        struct To {
            std::shared_ptr<Participant> p;
            std::vector<Msg> msgs;
            bool ack = false;
        };
        std::vector<To> to;
        for (auto& o : msgs) {
            if (o.crowd) continue;
            auto p = o.to.lock();
            if (!p) continue;
            auto it = std::find_if(to.begin(), to.end(), [&](const To& t) { return t.p == p; });
            if (it == to.end()) it = to.insert(to.end(), To{std::move(p), {}, false});
            it->msgs.push_back(o.msg);
            it->ack = it->ack || o.ack.has_value();
        }
        // The opponent (whose clock now runs) first, the mover's ack and event right after.
        std::stable_partition(to.begin(), to.end(), [](const To& t) { return !t.ack; });
        for (auto& t : to) t.p->deliver_all(std::move(t.msgs));
    };
    auto defer = [this, send](std::vector<Out> msgs, bool players_too) {
        ++crowd_pending_;
        boost::asio::post(ex_, [this, keep = host_.keep_alive(), msgs = std::move(msgs),
                                players_too, send]() mutable {
            --crowd_pending_;
            DeliveryBatch batch;
            if (players_too) send(msgs, false);
            send(msgs, true);
        });
    };
    if (crowd_pending_ > 0) return defer(std::move(out), true);
    DeliveryBatch batch;  // another node's recipients of this operation share one bus message
    const auto crowd =
        std::size_t(std::count_if(out.begin(), out.end(), [](const Out& o) { return o.crowd; }));
    send(out, false);
    if (crowd >= kCrowd) return defer(std::move(out), false);
    send(out, true);
}

void RoomOps::write_when_healthy(StoredGame row) {
    struct Retry : std::enable_shared_from_this<Retry> {
        Retry(RoomExecutor ex, Store& s, GameWrite w0) : timer(ex), store(s), w(std::move(w0)) {}
        boost::asio::steady_timer timer;
        Store& store;
        GameWrite w;
        int left = 120;  // a minute at most
        void again() {
            timer.expires_after(std::chrono::milliseconds(500));
            timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
                if (ec || --self->left <= 0) return;
                if (!self->store.healthy()) return self->again();
                GameWrite w = self->w;
                self->store.commit(std::move(w), [self](std::optional<std::string> err) {
                    // Done when written, or when there is no such row (or none of ours).
                    if (err && err->find("no game") == std::string::npos &&
                        err->rfind(kFenced, 0) != 0)
                        self->again();
                });
            });
        }
    };
    GameWrite w{code_, std::nullopt, {}, std::move(row)};
    w.owner = owner_;
    w.epoch = epoch_;
    std::make_shared<Retry>(ex_, store_, std::move(w))->again();
}

}  // namespace tf::server
