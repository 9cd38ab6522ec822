#include "server/cluster/cluster_standins.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "server/cluster/request_memory.h"
#include "server/room/delivery_batch.h"
#include "server/session/hub.h"
#include "server/session/session.h"

namespace tf::server::cluster_detail {

// A connection of another node, standing in for it here: requests come from the bus already
// parsed once and paid for; what the rooms send it goes back to the origin node.
class BusSession : public Session {
  public:
    BusSession(Hub& hub, StandIns& c, std::string origin, std::uint64_t conn, Player p)
        : Session(hub, "bus:" + origin),
          cluster_(c),
          ex_(asio::make_strand(hub.ioc)),
          origin_(std::move(origin)),
          conn_(conn) {
        assume(p);
    }
    void deliver(Msg m) override;
    void close(std::string reason, bool now) override;
    void moved(const std::string& code) override;
    // A request from the origin; `seq` (0: none) numbers it on its connection, the same again
    // when the origin re-sends it after a fault: run once, a repeat answered from memory.
    void request(std::string text, std::uint64_t seq, std::string ref, std::string code);
    void gone() {
        asio::post(ex_, [self = std::static_pointer_cast<BusSession>(shared_from_this())] {
            self->on_closed();
        });
    }
    const std::string& origin() const { return origin_; }
    std::uint64_t conn() const { return conn_; }
    SteadyTime since = std::chrono::steady_clock::now();

  protected:
    Store::Executor executor() override { return ex_; }
    const char* transport() const override { return "bus"; }
    bool missing(const std::string& code) override;
    bool may_forward() const override { return false; }

  private:
    StandIns& cluster_;
    asio::strand<asio::io_context::executor_type> ex_;
    std::string origin_;
    std::uint64_t conn_;
    // Exactly once (PROTOCOL.md "With several nodes"): the connection's last numbered
    // requests, with the answers that named their refs.
    RequestMemory memory_;
    std::uint64_t running_ = 0;  // the request the strand runs now (0: none, or unnumbered)
};

StandIns::StandIns(Core& core) : core_(core) {}

// Connections of nodes that stopped saying they are alive (dead, or cut off from us).
void StandIns::drop_silent(SteadyTime now) {
    std::vector<std::shared_ptr<BusSession>> gone;
    {
        std::lock_guard lock(m_);
        gone = take_remotes_locked([&](const RemoteKey& k, const BusSession& s) {
            auto h = heard_.find(k.first);
            const auto last = h == heard_.end() ? s.since : std::max(h->second, s.since);
            return now - last > std::chrono::seconds(10);
        });
        for (auto& s : gone) dropped_[{s->origin(), s->conn()}] = now;
        std::erase_if(dropped_, [&](const auto& d) {  // a connection of a dead origin
            return now - d.second > std::chrono::seconds(60);
        });
    }
    for (auto& s : gone) s->gone();
}

// Takes the stand-ins `drop` names out of remotes_ (m_ held); the caller ends them (gone())
// once the lock is released.
template <class Pred>
std::vector<std::shared_ptr<BusSession>> StandIns::take_remotes_locked(Pred drop) {
    std::vector<std::shared_ptr<BusSession>> gone;
    for (auto it = remotes_.begin(); it != remotes_.end();) {
        if (drop(it->first, *it->second)) {
            gone.push_back(it->second);
            it = remotes_.erase(it);
        } else {
            ++it;
        }
    }
    return gone;
}

void StandIns::on_request(const bus::Req& m, std::string_view body) {
    spdlog::debug("cluster: request #{} ({}) about {} from {} conn {}", m.seq, m.ref, m.code,
                  m.from, m.conn);
    std::shared_ptr<BusSession> s;
    bool forgotten = false;
    {
        std::lock_guard lock(m_);
        ++forwarded_in_;
        forgotten = !remotes_.count({m.from, m.conn});
        s = remote_locked(m.from, m.conn, Player{m.player_id, m.player_name, m.account, m.bot});
    }
    // A numbered request (not a watch or a join) for a connection without a stand-in here: its
    // stand-in was dropped (its origin looked dead), and with it what it watched. The origin
    // is told, in order with the answer, and catches the connection up.
    if (forgotten && m.seq) {
        std::lock_guard lock(out_m_);
        queue_locked(Outgoing{m.from,
                              nullptr,
                              0,
                              {m.conn},
                              bus::encode(bus::Rewatch{core_.node, m.from, m.conn, m.code})});
    }
    s->request(std::string(body), m.seq, m.ref, m.code);
}

std::shared_ptr<BusSession> StandIns::remote_locked(const std::string& origin, std::uint64_t conn,
                                                    const Player& p) {
    auto& s = remotes_[{origin, conn}];
    if (!s) s = std::make_shared<BusSession>(core_.hub, *this, origin, conn, p);
    return s;
}

void StandIns::on_gone(const std::string& from, std::uint64_t conn) {
    std::shared_ptr<BusSession> s;
    {
        std::lock_guard lock(m_);
        auto it = remotes_.find({from, conn});
        if (it == remotes_.end()) return;
        s = it->second;
        remotes_.erase(it);
    }
    s->gone();
}

void StandIns::on_alive(const bus::Alive& m) {
    const std::string& from = m.from;
    const std::set<std::uint64_t> conns(m.conns.begin(), m.conns.end());
    std::vector<std::shared_ptr<BusSession>> gone;
    std::vector<std::uint64_t> rewatch;
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m_);
        heard_[from] = now;
        const std::string node = node_of(from);
        gone = take_remotes_locked([&](const RemoteKey& k, const BusSession& s) {
            const std::string& origin = k.first;
            const bool old_life = origin != from && node_of(origin) == node;
            return old_life || (origin == from && !conns.count(k.second) &&
                                now - s.since > std::chrono::seconds(10));
        });
        // A connection whose stand-in this node dropped while its origin looked dead, listed
        // alive: what it watched here it no longer gets, and it may be waiting without a word
        // (an idle player, a paused game's snapshot). Its origin catches its routes up.
        for (auto it = dropped_.begin(); it != dropped_.end();) {
            if (it->first.first != from && node_of(it->first.first) != node) {
                ++it;
                continue;
            }
            if (it->first.first == from && conns.count(it->first.second))
                rewatch.push_back(it->first.second);
            it = dropped_.erase(it);
        }
    }
    for (auto& s : gone) s->gone();
    if (rewatch.empty()) return;
    std::lock_guard lock(out_m_);
    for (auto conn : rewatch)
        queue_locked(Outgoing{
            from, nullptr, 0, {conn}, bus::encode(bus::Rewatch{core_.node, from, conn, ""})});
}

std::shared_ptr<Member> StandIns::remote(const std::string& origin, std::uint64_t conn,
                                         const Player& p) {
    std::lock_guard lock(m_);
    return remote_locked(origin, conn, p);
}

void StandIns::nodes_alive(const std::set<std::string>& alive) {
    std::vector<std::shared_ptr<BusSession>> gone;
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m_);
        gone = take_remotes_locked([&](const RemoteKey& k, const BusSession&) {
            if (alive.count(node_of(k.first))) return false;
            auto h = heard_.find(k.first);  // `alive` comes every 2 s from a running origin
            return h == heard_.end() || now - h->second > std::chrono::seconds(5);
        });
        for (auto& s : gone) dropped_[{s->origin(), s->conn()}] = now;
    }
    for (auto& s : gone) s->gone();
}

void StandIns::clear() {
    std::lock_guard lock(m_);
    remotes_.clear();
}

StandIns::Stats StandIns::stats() const {
    std::lock_guard lock(m_);
    return Stats{forwarded_in_, out_messages_.load(), out_deliveries_.load(), remotes_.size()};
}

void StandIns::send_out(const std::string& origin, std::uint64_t conn, const Msg& m,
                        std::uint64_t seq) {
    std::lock_guard lock(out_m_);
    if (!seq) {
        auto j = joinable_.find({origin, m.get()});
        auto l = last_of_conn_.find({origin, conn});
        if (j != joinable_.end() && (l == last_of_conn_.end() || l->second < j->second)) {
            outgoing_[j->second].conns.push_back(conn);
            last_of_conn_[{origin, conn}] = j->second;
            return;
        }
    }
    StandIns::queue_locked(Outgoing{origin, m, seq, {conn}, {}});
}
void StandIns::send_close(const std::string& origin, std::uint64_t conn,
                          const std::string& reason) {
    std::lock_guard lock(out_m_);
    StandIns::queue_locked(Outgoing{
        origin, nullptr, 0, {conn}, bus::encode(bus::Close{core_.node, origin, conn, reason})});
}
void StandIns::send_notmine(const std::string& origin, std::uint64_t conn,
                            const std::string& code) {
    std::lock_guard lock(out_m_);
    StandIns::queue_locked(Outgoing{
        origin, nullptr, 0, {conn}, bus::encode(bus::NotMine{core_.node, origin, conn, code})});
}
void StandIns::queue_locked(Outgoing o) {
    const std::size_t at = outgoing_.size();
    last_of_conn_[{o.origin, o.conns.front()}] = at;
    if (o.msg && !o.seq) joinable_[{o.origin, o.msg.get()}] = at;
    outgoing_.push_back(std::move(o));
    if (std::exchange(out_posted_, true)) return;
    // Behind what is queued already (a room's crowd of spectators is sent in a handler after
    // its players': the event for both goes as one message); an operation still delivering on
    // this thread (a DeliveryBatch) first ends, so its recipients here share one message.
    auto post_flush = [w = weak_from_this()] {
        auto self = w.lock();
        if (!self) return;
        asio::post(self->core_.strand, [w] {
            if (auto self = w.lock())
                asio::post(self->core_.strand, [w] {
                    if (auto again = w.lock()) again->flush_out();
                });
        });
    };
    if (!DeliveryBatch::defer(this, post_flush)) post_flush();
}
void StandIns::flush_out() {
    std::vector<Outgoing> batch;
    {
        std::lock_guard lock(out_m_);
        batch.swap(outgoing_);
        joinable_.clear();
        last_of_conn_.clear();
        out_posted_ = false;
    }
    if (!core_.bus) return;
    for (auto& o : batch) {
        if (!o.msg) {
            core_.bus->publish(channel_of(o.origin), std::move(o.raw));
            continue;
        }
        ++out_messages_;
        out_deliveries_ += o.conns.size();
        core_.bus->publish(
            channel_of(o.origin),
            bus::encode(bus::Out{core_.node, o.origin, std::move(o.conns), o.seq}, *o.msg));
    }
}

void BusSession::request(std::string text, std::uint64_t seq, std::string ref, std::string code) {
    if (seq) {
        auto a = memory_.admit(seq, std::move(ref), std::move(code));
        if (a.verdict == RequestMemory::Verdict::Drop) return;  // once is enough
        if (a.verdict == RequestMemory::Verdict::Again)
            return cluster_.send_out(origin_, conn_, a.answer, seq);
    }
    asio::post(ex_, [self = std::static_pointer_cast<BusSession>(shared_from_this()),
                     text = std::move(text), seq] {
        if (seq) self->memory_.start(seq);
        self->running_ = seq;
        self->forwarded(text);
        self->running_ = 0;
    });
}

void BusSession::deliver(Msg m) {
    std::uint64_t seq = 0;
    if (m->find("\"ref\":\"") != std::string::npos) seq = memory_.answer(ref_of(*m), m);
    cluster_.send_out(origin_, conn_, m, seq);
}
void BusSession::close(std::string reason, bool) {
    cluster_.send_close(origin_, conn_, reason);
}
// The room of `code` was dropped here (another node owns the game now): the origin looks the
// owner up again and sends its unanswered requests there, or here again once this node holds
// the game anew. What the dropped room was running is forgotten, lest the re-send be taken
// for a repeat; requests still waiting on this strand stay remembered: they run (and find the
// new room, or none).
void BusSession::moved(const std::string& code) {
    memory_.dropped(code);
    cluster_.send_notmine(origin_, conn_, code);
}
// The request running now found no room of `code` here (not taken over yet, or dropped): it
// did not run, so its re-send, once the game is here, runs. Only this one is forgotten: those
// that came after it wait on the strand and may find the room (a takeover's room appears
// between two requests), so forgetting them too would let their re-sends run them twice.
bool BusSession::missing(const std::string& code) {
    if (running_) memory_.not_run(running_);
    cluster_.send_notmine(origin_, conn_, code);
    return true;
}

}  // namespace tf::server::cluster_detail
