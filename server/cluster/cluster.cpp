#include "server/cluster/cluster.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>

#include "server/base/metrics.h"
#include "server/base/secrets.h"
#include "server/cluster/bus.h"
#include "server/cluster/bus_messages.h"
#include "server/cluster/cluster_core.h"
#include "server/cluster/cluster_lobby.h"
#include "server/cluster/cluster_pool.h"
#include "server/cluster/cluster_routes.h"
#include "server/cluster/cluster_standins.h"
#include "server/room/room.h"
#include "server/session/hub.h"
#include "server/session/session.h"
#include "server/store/pg_schema.h"

namespace tf::server {

using nlohmann::json;
using namespace cluster_detail;

namespace {
double ms_since(SteadyTime t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

class Cluster::Impl : public std::enable_shared_from_this<Cluster::Impl> {
  public:
    Impl(Hub& hub, BusMaker make_bus)
        : make_bus_(std::move(make_bus)),
          core_(hub, hub.cfg.node_id, hub.cfg.node_id + "@" + random_hex(8), hub.cfg.lease_ms,
                hub.cfg.database_url, hub.ioc),
          timer_(core_.strand),
          lobby_(core_),
          standins_(std::make_shared<StandIns>(core_)),
          pool_(core_,
                [s = standins_.get()](const std::string& origin, std::uint64_t conn,
                                      const Player& p) { return s->remote(origin, conn, p); }),
          routes_(std::make_shared<Routes>(core_, pool_,
                                           [this](pg::Blocking& db) { claim(db, false); })) {}

    BusMaker make_bus_;
    Core core_;
    Hub& hub_ = core_.hub;
    const std::string& node_ = core_.node;
    const std::string& me_ = core_.me;  // this process: node_@incarnation
    const int lease_ms_ = core_.lease_ms;
    DbThread& db_ = core_.db;
    std::unique_ptr<BusLink>& bus_ = core_.bus;
    asio::strand<asio::io_context::executor_type>& strand_ = core_.strand;
    asio::steady_timer timer_;
    LobbyReplica lobby_;
    std::shared_ptr<StandIns> standins_;  // the owner's side of forwarding
    SharedPool pool_;
    std::shared_ptr<Routes> routes_;               // the origin's side
    std::atomic<std::int64_t> lease_until_ms_{0};  // steady clock, ms: the lease surely holds
    std::atomic<bool> stopping_{false};

    mutable std::mutex m_;
    std::set<std::string> alive_nodes_;
    Stats stats_;
    SteadyTime last_alive_sent_{};
    std::vector<std::string> restored_;  // taken back at start, before the bus was up

    // ---------------------------------------------------------------- startup and shutdown
    bool start() {
        try {
            db_.now([&](pg::Blocking& db) { check_twin(db); });
            db_.now([&](pg::Blocking& db) { renew(db); });
            db_.now([&](pg::Blocking& db) { claim(db, true); });
            // Presence (proto/PROTOCOL.md "Follow and block"): this node's rows of an earlier
            // life go; from now on a player's first connection here adds one, its last takes
            // it away. The rows of a node whose lease lapsed are not read.
            db_.now([&](pg::Blocking& db) {
                db.exec("DELETE FROM online WHERE split_part(node, '@', 1) = $1", {node_});
            });
        } catch (const std::exception& e) {
            spdlog::critical("cluster: cannot start node {}: {}", node_, e.what());
            return false;
        }
        hub_.listings.on_change([w = weak_from_this()](const std::string& code) {
            if (auto self = w.lock()) self->lobby_.changed(code);
        });
        hub_.players.on_presence([this](const std::string& player, bool online) {
            db_.post([me = me_, player, online](pg::Blocking& db) {
                if (online)
                    db.exec(
                        "INSERT INTO online (player_id, node, since) VALUES ($1, $2, $3) ON "
                        "CONFLICT DO NOTHING",
                        {player, me,
                         num(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count())});
                else
                    db.exec("DELETE FROM online WHERE player_id = $1 AND node = $2", {player, me});
            });
        });
        BusLink::Handlers h;
        h.message = [w = weak_from_this()](const std::string& ch, std::string payload) {
            if (auto self = w.lock()) self->on_message(ch, std::move(payload));
        };
        h.up = [w = weak_from_this()] {
            if (auto self = w.lock()) self->on_bus_up();
        };
        h.down = [w = weak_from_this()] {
            if (auto self = w.lock()) spdlog::warn("cluster: the bus is down");
        };
        std::vector<std::string> channels{channel_of(node_), kAll};
        if (make_bus_)
            bus_ = make_bus_(std::move(channels), std::move(h));
        else
            bus_ = std::make_unique<Bus>(hub_.ioc, hub_.cfg.bus, std::move(channels), std::move(h));
        bus_->start();
        const auto every = std::chrono::milliseconds(std::max(300, std::min(1000, lease_ms_ / 3)));
        db_.start([this](pg::Blocking& db) { tick_db(db); }, every);
        asio::post(strand_, [self = shared_from_this()] { self->tick(); });
        spdlog::info("cluster: node {} on bus {}, lease {} ms", node_, hub_.cfg.bus, lease_ms_);
        return true;
    }

    void hand_over() {
        stopping_ = true;
        auto done = std::make_shared<std::promise<void>>();  // outlives a wait that gave up
        auto fut = done->get_future();
        db_.post([done, this](pg::Blocking& db) {
            try {
                auto r = db.exec(
                    "UPDATE games SET owner = NULL, epoch = epoch + 1 WHERE owner = $1 AND "
                    "status IN ('open', 'playing')",
                    {node_});
                db.exec("DELETE FROM nodes WHERE id = $1", {node_});
                db.exec("DELETE FROM seeks WHERE node = $1", {me_});
                spdlog::info("cluster: handed {} games over to the other nodes", r.cmd_tuples);
            } catch (const std::exception& e) {
                spdlog::warn(
                    "cluster: hand-over failed ({}); the games move when the lease "
                    "expires",
                    e.what());
            }
            done->set_value();
        });
        if (fut.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
            spdlog::warn("cluster: hand-over did not finish in 5 s");
            return;
        }
        if (!bus_) return;
        // The others claim at once when told (else at their next claim, within a second). Its
        // answer runs on the io_context: with one network thread (this one) it never comes in
        // time, and the wait is short.
        auto told = std::make_shared<std::promise<void>>();
        auto sent = told->get_future();
        bus_->publish(kAll, bus::encode(bus::Handover{node_}), [told](long) { told->set_value(); });
        sent.wait_for(std::chrono::milliseconds(300));
    }

    // After the io_context stopped: nothing runs on the strand any more.
    void stop() {
        stopping_ = true;
        hub_.players.on_presence({});  // its rows are read no more once the lease lapses
        db_.stop();
        timer_.cancel();
        if (bus_) bus_->stop();
        hub_.listings.on_change({});
        std::lock_guard lock(m_);
        standins_->clear();
        routes_->clear();
    }

    bool healthy(std::string* why) const {
        if (!bus_ || !bus_->healthy()) {
            if (why) *why = "the bus (Redis) is down";
            return false;
        }
        if (now_ms() >= lease_until_ms_.load()) {
            if (why) *why = "this node's lease in PostgreSQL is not renewed";
            return false;
        }
        return true;
    }

    static std::int64_t now_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    // Another node with this id must not be running: two would take each other's games. A live
    // lease under our id is either this node's previous life (killed, its lease running out) or
    // a twin that renews it; watched for up to a lease, the first runs out and the second is
    // renewed. A node handed its games over at its stop (SIGTERM) left no lease: no wait.
    void check_twin(pg::Blocking& db) {
        auto lease = [&]() -> std::optional<std::string> {
            auto rows = db.exec(
                              "SELECT lease_until::text FROM nodes WHERE id = $1 AND "
                              "lease_until > now()",
                              {node_})
                            .rows;
            if (rows.empty()) return std::nullopt;
            return rows[0][0].value_or("");
        };
        auto first = lease();
        if (!first) return;
        spdlog::warn(
            "cluster: node id {} holds a lease until {}: waiting at most one lease to see whether "
            "another node with this id runs (a restart after a crash waits for its old lease)",
            node_, *first);
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(lease_ms_ + 1000);
        while (std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            auto now = lease();
            if (!now) return;  // it ran out: a previous life
            if (*now != *first)
                throw std::runtime_error("another node with id " + node_ +
                                         " is running (it renewed its lease); give every node "
                                         "its own --node-id");
        }
    }

    // ---------------------------------------------------------------- the database thread
    void renew(pg::Blocking& db) {
        const auto t0 = std::chrono::steady_clock::now();
        try {
            db.exec(
                "INSERT INTO nodes (id, lease_until) VALUES ($1, now() + $2 * interval '1 "
                "millisecond') ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until",
                {node_, num(lease_ms_)});
        } catch (...) {
            std::lock_guard lock(m_);
            ++stats_.lease_failures;
            throw;
        }
        const double ms = ms_since(t0);
        // The lease surely holds until lease_ms after the request left, on our clock.
        lease_until_ms_ =
            std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch()).count() +
            lease_ms_;
        metrics().lease_renew.observe(ms);
    }

    SteadyTime last_renew_{};
    void tick_db(pg::Blocking& db) {
        if (stopping_) return;
        if (std::chrono::steady_clock::now() - last_renew_ >=
            std::chrono::milliseconds(lease_ms_ / 3)) {
            last_renew_ = std::chrono::steady_clock::now();
            renew(db);
        }
        claim(db, false);
        check_owned(db);
        // Who is alive: other nodes' lobby entries and connections go with a dead node.
        auto rows = db.exec("SELECT id FROM nodes WHERE lease_until > now()").rows;
        std::set<std::string> alive;
        for (auto& r : rows) alive.insert(r[0].value_or(""));
        db.exec(
            "DELETE FROM seeks WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = "
            "split_part(seeks.node, '@', 1) "
            "AND n.lease_until > now())");
        asio::post(strand_, [self = shared_from_this(), alive = std::move(alive)]() mutable {
            self->nodes_alive(std::move(alive));
        });
    }

    // Claims unfinished games nobody holds: of nodes whose lease expired, given up (NULL), or
    // at start this node's own from before.
    // Also this node's own games it does not hold (a claim whose replay could neither be read
    // nor released), once 30 s old: the list of rooms held is read before the claim runs, so a
    // game created in between would look orphaned, and claiming it would fence its live room.
    void claim(pg::Blocking& db, bool at_start) {
        for (;;) {
            const std::string held = local_codes();  // again: each batch adds rooms
            auto rows =
                db.exec(
                      "UPDATE games g SET owner = $1, epoch = g.epoch + 1 FROM (SELECT code FROM "
                      "games WHERE status IN ('open', 'playing') AND quarantine IS NULL AND "
                      "(owner IS NULL OR (owner = $1 AND ($2::boolean OR (NOT code = "
                      "ANY($3::text[]) AND created_at < extract(epoch FROM now()) * 1000 - "
                      "30000))) "
                      "OR (owner <> $1 AND NOT "
                      "EXISTS (SELECT 1 FROM nodes n WHERE n.id = games.owner AND n.lease_until "
                      "> now()))) ORDER BY id LIMIT 32 FOR UPDATE SKIP LOCKED) c WHERE g.code = "
                      "c.code RETURNING g.code, g.epoch",
                      {node_, at_start ? "true" : "false", held})
                    .rows;
            if (rows.empty()) return;
            for (auto& r : rows) take(db, *r[0], std::stoll(*r[1]), at_start);
            if (rows.size() < 32) return;
        }
    }

    // A claimed game: replayed from its journal and served here.
    void take(pg::Blocking& db, const std::string& code, std::int64_t epoch, bool at_start) {
        std::shared_ptr<Room> room;
        try {
            auto rows = hub_.store->game_rows(code);  // the row and its journal, one read
            if (!rows) return;
            room = hub_.factory.adopt(*rows, "cluster").room;
        } catch (const StoreError& e) {
            // The store's trouble, not the game's: given up, claimed again later.
            spdlog::warn("cluster: game {} cannot be read ({}); released", code, e.what());
            db.exec("UPDATE games SET owner = NULL WHERE code = $1 AND owner = $2 AND epoch = $3",
                    {code, node_, num(epoch)});
            return;
        }
        if (!room) return;  // quarantined
        room->claimed(epoch);
        // A room of the game this node still holds from before (its lease lapsed, another node
        // released the game unread, and this one claimed it again): dropped as fenced, its
        // watchers told "moved" (they reconnect and watch the new one); left alone it would
        // keep them waiting for a resumption that only the new room makes.
        auto old = hub_.directory.find(code);
        if (old) hub_.directory.remove(code);
        hub_.directory.add(code, room);
        if (old)
            old->lost(std::string(kFenced) + "game " + code + " was claimed again at epoch " +
                      std::to_string(epoch));
        room->resume();
        {
            std::lock_guard lock(m_);
            ++stats_.takeovers;
        }
        spdlog::info("cluster: game {} {} at epoch {}", code, at_start ? "restored" : "taken over",
                     epoch);
        routes_->adopt(code);
        if (bus_)
            bus_->publish(kAll, bus::encode(bus::Moved{code, node_}));
        else  // at start: announced once the bus is up (the other nodes route to our new life)
            restored_.push_back(code);
    }

    // The codes of the rooms this node holds, as a PostgreSQL array literal (codes are letters
    // and digits).
    std::string local_codes() {
        std::string codes = "{";
        for (const auto& room : hub_.directory.all()) {
            if (codes.size() > 1) codes += ',';
            codes += room->code();
        }
        return codes + '}';
    }

    // Rooms this node holds whose game another node owns now (this one stalled past its lease):
    // dropped, as a refused write would.
    void check_owned(pg::Blocking& db) {
        const std::string codes = local_codes();
        if (codes == "{}") return;
        auto rows = db.exec(
                          "SELECT code, owner FROM games WHERE code = ANY($1::text[]) AND owner "
                          "IS DISTINCT FROM $2 AND status IN ('open', 'playing')",
                          {codes, node_})
                        .rows;
        for (auto& r : rows)
            if (auto room = hub_.directory.find(*r[0]))
                room->lost(std::string(kFenced) + "game " + *r[0] + " is owned by node " +
                           r[1].value_or("(none)") + " now");
    }

    // ---------------------------------------------------------------- timers (strand)
    void tick() {
        if (stopping_) return;
        lobby_.publish();
        hub_.listings.flush_live();
        const auto now = std::chrono::steady_clock::now();
        if (now - last_alive_sent_ >= std::chrono::seconds(2)) {
            last_alive_sent_ = now;
            routes_->every_2s(now);
            standins_->drop_silent(now);
        }
        timer_.expires_after(std::chrono::milliseconds(50));
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->tick();
        });
    }

    void nodes_alive(std::set<std::string> alive) {
        {
            std::lock_guard lock(m_);
            alive_nodes_ = alive;
        }
        standins_->nodes_alive(alive);
        lobby_.nodes_alive(alive);
    }

    // ---------------------------------------------------------------- bus messages
    void on_message(const std::string& channel, std::string payload) {
        (void)channel;
        std::string why;
        auto decoded = bus::decode(payload, &why);
        if (!decoded) {
            spdlog::warn("cluster: a bus message was ignored: {}", why);
            return;
        }
        const std::string_view body = decoded->body;
        try {
            std::visit(
                [&](const auto& m) {
                    using T = std::decay_t<decltype(m)>;
                    if constexpr (std::is_same_v<T, bus::Req>) standins_->on_request(m, body);
                    if constexpr (std::is_same_v<T, bus::Out>) routes_->on_out(m, body);
                    if constexpr (std::is_same_v<T, bus::Gone>) standins_->on_gone(m.from, m.conn);
                    if constexpr (std::is_same_v<T, bus::Alive>) standins_->on_alive(m);
                    if constexpr (std::is_same_v<T, bus::NotMine>) routes_->on_notmine(m);
                    if constexpr (std::is_same_v<T, bus::Close>) routes_->on_close(m);
                    if constexpr (std::is_same_v<T, bus::Rewatch>) routes_->on_rewatch(m);
                    if constexpr (std::is_same_v<T, bus::Back>) routes_->on_back(m.from);
                    if constexpr (std::is_same_v<T, bus::Lobby>)
                        if (m.from != node_) lobby_.on_entry(m, body);
                    if constexpr (std::is_same_v<T, bus::Moved>)
                        if (m.owner != node_) on_moved(m.code, m.owner);
                    if constexpr (std::is_same_v<T, bus::Sync>)
                        if (m.from != node_) lobby_.resync();
                    // Its tokens were revoked (a logout everywhere, a closed account): none of
                    // them is remembered here any more either.
                    if constexpr (std::is_same_v<T, bus::End>)
                        if (m.from != node_) {
                            hub_.identity.forget_player(m.player);
                            for (auto& c : hub_.players.connections(m.player))
                                c->end(m.reason, m.closed);
                        }
                    if constexpr (std::is_same_v<T, bus::Tell>)
                        if (m.from != node_) {
                            auto text = std::make_shared<const std::string>(body);
                            for (auto& c : hub_.players.connections(m.player)) c->deliver(text);
                        }
                    if constexpr (std::is_same_v<T, bus::Refresh>)
                        if (m.from != node_)
                            for (auto& c : hub_.players.connections(m.player))
                                c->relations_changed();
                    if constexpr (std::is_same_v<T, bus::Handover>)
                        if (m.from != node_)
                            db_.post([self = shared_from_this()](pg::Blocking& db) {
                                self->claim(db, false);
                            });
                },
                decoded->message);
        } catch (const std::exception& e) {
            spdlog::warn("cluster: a bus message could not be handled: {}", e.what());
        }
    }

    // A game changed hands: requests go to the new owner, which replays what we missed. If
    // this node held it, it stalled past its lease: the game is not its any more.
    void on_moved(const std::string& code, const std::string& owner) {
        if (auto room = hub_.directory.find(code))
            room->lost(std::string(kFenced) + "game " + code + " was taken over by node " + owner);
        routes_->on_moved(code, owner);
    }

    // The bus is back (or up for the first time): whatever was published meanwhile is lost,
    // so every forwarded game is looked up again and replayed from its last version, and the
    // lobby is exchanged whole.
    void on_bus_up() {
        spdlog::info("cluster: the bus is up");
        for (const auto& code : std::exchange(restored_, {}))
            bus_->publish(kAll, bus::encode(bus::Moved{code, node_}));
        routes_->bus_up();
        lobby_.resync();
        bus_->publish(kAll, bus::encode(bus::Sync{node_}));
        bus_->publish(kAll, bus::encode(bus::Back{node_}));
    }

    Stats stats() const {
        std::lock_guard lock(m_);
        Stats s = stats_;
        const auto r = routes_->stats();
        s.forwarded_out = r.forwarded_out;
        s.catchups = r.catchups;
        s.answers_dropped = r.answers_dropped;
        s.routes = r.routes;
        const auto o = standins_->stats();
        s.forwarded_in = o.forwarded_in;
        s.remote_connections = o.remote_connections;
        s.out_messages = o.out_messages;
        s.out_deliveries = o.out_deliveries;
        s.nodes_alive = alive_nodes_.size();
        if (bus_) {
            auto b = bus_->stats();
            s.bus_published = b.published;
            s.bus_received = b.received;
            s.bus_dropped = b.dropped;
            s.bus_reconnects = b.reconnects;
            s.bus_up = bus_->healthy();
        }
        return s;
    }
};

Cluster::Cluster(Hub& hub, BusMaker make_bus)
    : impl_(std::make_shared<Impl>(hub, std::move(make_bus))) {}
Cluster::~Cluster() {
    impl_->stop();
}
bool Cluster::start() {
    return impl_->start();
}
void Cluster::hand_over() {
    impl_->hand_over();
}
void Cluster::stop() {
    impl_->stop();
}
const std::string& Cluster::node() const {
    return impl_->node_;
}
bool Cluster::healthy(std::string* why) const {
    return impl_->healthy(why);
}
bool Cluster::forward(const std::shared_ptr<Session>& from, const Player& p,
                      const std::string& code, std::string text, const proto::ClientMsg& msg) {
    if (impl_->hub_.directory.find(code)) return false;
    impl_->routes_->forward(from, p, code, std::move(text), msg);
    return true;
}
void Cluster::closed(Session& s, const std::string& player_id) {
    impl_->routes_->closed(s.conn_id());
    impl_->pool_.closed(s.conn_id(), player_id);
}
// Every node's seats, as the store knows them. A node resumed after a pause beyond its lease
// still holds games that others have taken over (and maybe finished) until its next write finds
// it fenced: its own list joins only when the store cannot be read.
void Cluster::seated_games(const std::string& player_id, Store::Executor ex,
                           std::function<void(std::vector<std::string>)> then) {
    struct Merge {
        std::set<std::string> codes;
        bool unread = false;
    };
    auto merge = std::make_shared<Merge>();
    auto add = [merge](const Read<GamePage>& r) {
        if (!r.ok()) {
            merge->unread = true;
            return;
        }
        for (const auto& [cursor, g] : r.value->games) merge->codes.insert(g.code);
    };
    Hub& hub = impl_->hub_;
    hub.store->read_page(
        GameQuery{"playing", player_id, 50, 0}, ex,
        [&hub, ex, then = std::move(then), merge, add, player_id](Read<GamePage> playing) {
            add(playing);
            hub.store->read_page(
                GameQuery{"open", player_id, 50, 0}, ex,
                [&hub, then, merge, add, player_id](Read<GamePage> open) {
                    add(open);
                    if (merge->unread)
                        for (auto& code : hub.players.games_of(player_id))
                            merge->codes.insert(code);
                    then(std::vector<std::string>(merge->codes.begin(), merge->codes.end()));
                });
        });
}
void Cluster::open_elsewhere(const std::string& player_id, const std::string& address,
                             Store::Executor ex, Store::Then<OpenGameCounts> then) {
    impl_->hub_.store->read_open_counts(player_id, address, impl_->node_, ex, std::move(then));
}
void Cluster::seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
                   const std::string& pool, std::optional<int> rating) {
    impl_->pool_.seek(s, p, m, pool, rating, false);
}
void Cluster::retry_seek(const std::shared_ptr<Session>& s, const Player& p,
                         const proto::QuickMatch& m, const std::string& pool,
                         std::optional<int> rating) {
    impl_->pool_.seek(s, p, m, pool, rating, true);
}
void Cluster::withdraw(const std::string& player_id) {
    impl_->pool_.withdraw(player_id);
}
void Cluster::end_player(const std::string& player_id, const std::string& reason, bool closed) {
    impl_->bus_->publish(kAll, bus::encode(bus::End{impl_->node_, player_id, reason, closed}));
}
void Cluster::tell_player(const std::string& player_id, const std::string& text) {
    impl_->bus_->publish(kAll, bus::encode(bus::Tell{impl_->node_, player_id}, text));
}
void Cluster::relations_changed(const std::string& player_id) {
    impl_->bus_->publish(kAll, bus::encode(bus::Refresh{impl_->node_, player_id}));
}
Cluster::Stats Cluster::stats() const {
    return impl_->stats();
}
void Cluster::render_metrics(std::string& out) const {
    const auto c = stats();
    auto& m = metrics();
    struct Row {
        const char* name;
        const char* type;
        const char* help;
        std::uint64_t value;
    };
    const Row rows[] = {
        {"trunkfield_cluster_bus_up", "gauge", "1 while the Redis bus is connected.",
         std::uint64_t(c.bus_up ? 1 : 0)},
        {"trunkfield_cluster_nodes_alive", "gauge",
         "Nodes holding a lease, as last read from PostgreSQL.", std::uint64_t(c.nodes_alive)},
        {"trunkfield_cluster_forwarded_out_total", "counter",
         "Requests of this node's connections forwarded to the node owning their game.",
         std::uint64_t(c.forwarded_out)},
        {"trunkfield_cluster_forwarded_in_total", "counter",
         "Requests forwarded here by other nodes.", std::uint64_t(c.forwarded_in)},
        {"trunkfield_cluster_catchups_total", "counter",
         "Replays asked of a game's owner after it moved or the bus came back.",
         std::uint64_t(c.catchups)},
        {"trunkfield_cluster_takeovers_total", "counter",
         "Games claimed by this node (from a dead node, a hand-over, or at start).",
         std::uint64_t(c.takeovers)},
        {"trunkfield_cluster_games_fenced_total", "counter",
         "Games this node dropped because another node owns them now.",
         std::uint64_t(m.games_fenced.load())},
        {"trunkfield_cluster_remote_connections", "gauge",
         "Connections of other nodes standing in here.", std::uint64_t(c.remote_connections)},
        {"trunkfield_cluster_bus_published_total", "counter", "Messages published on the bus.",
         std::uint64_t(c.bus_published)},
        {"trunkfield_cluster_bus_received_total", "counter", "Messages received from the bus.",
         std::uint64_t(c.bus_received)},
        {"trunkfield_cluster_bus_dropped_total", "counter",
         "Messages that could not be published (the bus was down).", std::uint64_t(c.bus_dropped)},
        {"trunkfield_cluster_bus_reconnects_total", "counter",
         "Times the bus connection was made again.", std::uint64_t(c.bus_reconnects)},
        {"trunkfield_cluster_lease_failures_total", "counter", "Lease renewals that failed.",
         std::uint64_t(c.lease_failures)},
        {"trunkfield_cluster_answers_dropped_total", "counter",
         "Answers from another node not passed on: a second answer to one request, or "
         "one from a node that lost the game.",
         std::uint64_t(c.answers_dropped)},
        {"trunkfield_cluster_out_messages_total", "counter",
         "Messages for connections of other nodes published on the bus.",
         std::uint64_t(c.out_messages)},
        {"trunkfield_cluster_out_deliveries_total", "counter",
         "Deliveries those messages carried (one message serves every watcher of a game "
         "on one node).",
         std::uint64_t(c.out_deliveries)},
    };
    for (const Row& r : rows) metric(out, r.name, r.type, r.help, std::to_string(r.value));
    m.lease_renew.render(out, "trunkfield_cluster_lease_renew_seconds",
                         "Renewals of this node's lease in PostgreSQL.");
}

}  // namespace tf::server
