#include "server/cluster.h"

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

#include "server/bus.h"
#include "server/bus_messages.h"
#include "server/hub.h"
#include "server/metrics.h"
#include "server/pg_schema.h"
#include "server/room.h"
#include "server/secrets.h"
#include "server/session.h"

namespace tf::server {

namespace asio = boost::asio;
using nlohmann::json;
using SteadyTime = std::chrono::steady_clock::time_point;

namespace {

const std::string kAll = "tf:all";  // every node: lobby entries, moves, hand-overs

// A node's process is "NODE@INCARNATION" (random at each start) where connections are named:
// connection ids restart at 1 with the process, so a node restarted with the same id must not
// inherit the stand-ins of its previous life's connections.
std::string node_of(const std::string& id) {
    return id.substr(0, id.find('@'));
}
std::string channel_of(const std::string& id) {
    return "tf:node:" + node_of(id);
}

// The game and version of an event or a snapshot, read off the text as serialize_server.cpp
// writes it (keys sorted: "game" is the first such key, "type" and "version" the last two).
struct Versioned {
    std::string game;
    std::int64_t version = 0;
    bool snapshot = false;
    // An event that carries the game's version without adding one (the spectator count,
    // ratings, a spectators' chat line): outside the order of the others.
    bool unversioned = false;
};
std::optional<Versioned> versioned(std::string_view m) {
    Versioned v;
    auto t = m.rfind(",\"type\":\"");
    if (t == std::string_view::npos) return std::nullopt;
    std::string_view tail = m.substr(t + 9);
    if (tail.rfind("event\",\"version\":", 0) == 0)
        tail.remove_prefix(17);
    else if (tail.rfind("snapshot\",\"version\":", 0) == 0) {
        tail.remove_prefix(20);
        v.snapshot = true;
    } else
        return std::nullopt;
    std::int64_t n = 0;
    std::size_t i = 0;
    for (; i < tail.size() && tail[i] >= '0' && tail[i] <= '9'; ++i) n = n * 10 + (tail[i] - '0');
    if (i == 0) return std::nullopt;
    v.version = n;
    auto g = m.find("\"game\":\"");
    if (g == std::string_view::npos) return std::nullopt;
    auto e = m.find('"', g + 8);
    if (e == std::string_view::npos) return std::nullopt;
    v.game = std::string(m.substr(g + 8, e - g - 8));
    v.unversioned = !v.snapshot && (m.find("\"kind\":\"spectators\"") != std::string_view::npos ||
                                    m.find("\"kind\":\"ratings\"") != std::string_view::npos ||
                                    m.find("\"room\":\"spectators\"") != std::string_view::npos);
    return v;
}

// The game of an owner's notice that it is paused (store_failed or in_doubt, which name it).
std::optional<std::string> paused_game(std::string_view m) {
    if (m.rfind("{\"code\":\"store_failed\"", 0) != 0 && m.rfind("{\"code\":\"in_doubt\"", 0) != 0)
        return std::nullopt;
    auto g = m.find("\"game\":\"");
    if (g == std::string_view::npos) return std::nullopt;
    auto e = m.find('"', g + 8);
    if (e == std::string_view::npos) return std::nullopt;
    return std::string(m.substr(g + 8, e - g - 8));
}

double ms_since(SteadyTime t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string watch_text(const std::string& code, std::int64_t since) {
    json j{{"type", "watch"}, {"code", code}};
    if (since >= 0) j["since_version"] = since;
    return j.dump();
}

// The database thread: blocking libpq on one connection, jobs in order, reconnecting after a
// fault (the next job connects again).
class DbThread {
  public:
    using Job = std::function<void(pg::Blocking&)>;
    explicit DbThread(std::string url) : url_(std::move(url)) {}
    ~DbThread() { stop(); }
    void start(std::function<void(pg::Blocking&)> tick, std::chrono::milliseconds every) {
        tick_ = std::move(tick);
        every_ = every;
        thread_ = std::thread([this] { run(); });
    }
    void post(Job j) {
        {
            std::lock_guard lock(m_);
            jobs_.push_back(std::move(j));
        }
        cv_.notify_one();
    }
    // Runs `j` now on the caller's thread with the thread's connection (before start()).
    void now(const Job& j) { j(conn()); }
    void stop() {
        {
            std::lock_guard lock(m_);
            if (stopped_) return;
            stopped_ = true;
        }
        cv_.notify_one();
        if (thread_.joinable()) thread_.join();
    }

  private:
    pg::Blocking& conn() {
        if (!db_) db_ = std::make_unique<pg::Blocking>(url_);
        return *db_;
    }
    void run() {
        auto next_tick = std::chrono::steady_clock::now();
        for (;;) {
            Job job;
            bool tick = false;
            {
                std::unique_lock lock(m_);
                cv_.wait_until(lock, next_tick, [&] { return stopped_ || !jobs_.empty(); });
                if (stopped_) return;
                if (!jobs_.empty()) {
                    job = std::move(jobs_.front());
                    jobs_.pop_front();
                } else {
                    tick = true;
                }
            }
            if (tick) {
                next_tick = std::chrono::steady_clock::now() + every_;
                job = tick_;
            }
            try {
                job(conn());
            } catch (const StoreError& e) {
                spdlog::warn("cluster: {}", e.what());
                if (e.fault) db_.reset();
            } catch (const std::exception& e) {
                spdlog::error("cluster: {}", e.what());
                db_.reset();
            }
        }
    }
    std::string url_;
    std::unique_ptr<pg::Blocking> db_;
    std::thread thread_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    bool stopped_ = false;
    std::function<void(pg::Blocking&)> tick_;
    std::chrono::milliseconds every_{1000};
};

std::string num(std::int64_t v) {
    return std::to_string(v);
}

}  // namespace

// A connection of another node, standing in for it here: requests come from the bus already
// parsed once and paid for; what the rooms send it goes back to the origin node.
class BusSession : public Session {
  public:
    BusSession(Hub& hub, Cluster::Impl& c, std::string origin, std::uint64_t conn, Player p)
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
    void request(std::string text, std::uint64_t seq, std::string ref);
    void gone() {
        asio::post(ex_, [self = std::static_pointer_cast<BusSession>(shared_from_this())] {
            self->on_closed();
        });
    }
    const std::string& origin() const { return origin_; }
    SteadyTime since = std::chrono::steady_clock::now();

  protected:
    Store::Executor executor() override { return ex_; }
    const char* transport() const override { return "bus"; }
    bool missing(const std::string& code) override;
    bool may_forward() const override { return false; }

  private:
    Cluster::Impl& cluster_;
    asio::strand<asio::io_context::executor_type> ex_;
    std::string origin_;
    std::uint64_t conn_;
    // Exactly once (PROTOCOL.md "With several nodes"): the last requests run for this
    // connection, by sequence number, with the answer that named their ref once it came.
    struct Ran {
        std::uint64_t seq = 0;
        std::string ref;  // "" for a request without one (nothing to answer again)
        Msg answer;
    };
    static constexpr std::size_t kRemembered = 256;
    std::mutex ran_m_;
    std::deque<Ran> ran_;
};

class Cluster::Impl : public std::enable_shared_from_this<Cluster::Impl> {
  public:
    explicit Impl(Hub& hub)
        : hub_(hub),
          node_(hub.cfg.node_id),
          me_(node_ + "@" + random_hex(8)),
          lease_ms_(hub.cfg.lease_ms),
          db_(hub.cfg.database_url),
          strand_(asio::make_strand(hub.ioc)),
          timer_(strand_) {}

    Hub& hub_;
    const std::string node_;
    const std::string me_;  // this process: node_@incarnation
    const int lease_ms_;
    DbThread db_;
    std::unique_ptr<Bus> bus_;
    asio::strand<asio::io_context::executor_type> strand_;
    asio::steady_timer timer_;
    std::atomic<std::int64_t> lease_until_ms_{0};  // steady clock, ms: the lease surely holds
    std::atomic<bool> stopping_{false};

    mutable std::mutex m_;
    // ---- the origin's side: connections of ours with requests forwarded to other nodes ----
    // A request on its way to the owner: `seq` numbers the client's requests on this
    // connection (the owner runs each number once); 0 for the catch-ups this node asks itself.
    struct Req {
        std::uint64_t seq = 0;
        std::string text;
        // What answers it: its ref; for a watch or a join (no ref), the game's snapshot or
        // events (kSyncKey); "" for the others (chat, resign...).
        std::string key;
    };
    struct Route {
        std::string owner;  // the node serving the game, "" while not known
        bool resolving = false;
        bool watching = false;   // events came: on a move, ask the new owner to replay
        std::int64_t last = -1;  // the highest version passed on (-1: the next one, whatever)
        // The owner said the game is paused (store_failed, in_doubt, a suspended snapshot): the
        // client waits for the snapshot of its resumption, so a catch-up asks for a snapshot.
        bool suspended = false;
        std::deque<Req> queue;     // requests waiting for the owner
        std::deque<Req> inflight;  // published, not yet confirmed received
        // Published requests with a ref not answered yet (an ack or an error names it): a
        // dead owner may have taken them with it, so they go again to the next one.
        std::deque<std::pair<std::string, Req>> unanswered;  // (ref or kSyncKey, request)
        std::uint64_t gen = 0;  // bumped when the in-flight ones are taken back
        int attempts = 0;       // lookups in a row without a live owner
        // Events are passed on in version order, without a gap: one above last + 1 waits here
        // while the missing ones are asked of the owner (a catch-up), which fills the gap.
        std::map<std::int64_t, Msg> held;
        SteadyTime asked{};  // when the catch-up for the gap was asked (held not empty)
    };
    struct Link {
        std::weak_ptr<Session> session;
        Player player;
        std::map<std::string, Route> routes;
        std::uint64_t next_seq = 1;
        // The sequence numbers answered lately: a second answer to one request (the owner
        // answering a re-send from its memory while the first answer was on its way) is dropped.
        std::set<std::uint64_t> answered;
    };
    std::map<std::uint64_t, Link> links_;
    // ---- the owner's side: connections of other nodes ----
    std::map<std::pair<std::string, std::uint64_t>, std::shared_ptr<BusSession>> remotes_;
    std::map<std::string, SteadyTime> heard_;  // the last `alive` of each origin node
    // ---- the lobby ----
    // Our games whose entries changed, in the order they did: published a few per tick, so
    // a crowd of live games costs no burst on the network thread.
    std::set<std::string> dirty_;
    std::deque<std::string> dirty_order_;
    static constexpr std::size_t kLobbyPerTick = 16;  // every 50 ms: 320 entries a second
    std::set<std::string> listed_;                    // our games with entries published
    std::map<std::string, std::string> lobby_owner_;  // other nodes' listed games: their node
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
        } catch (const std::exception& e) {
            spdlog::critical("cluster: cannot start node {}: {}", node_, e.what());
            return false;
        }
        hub_.listings.on_change([w = weak_from_this()](const std::string& code) {
            if (auto self = w.lock()) self->listing_changed(code);
        });
        Bus::Handlers h;
        h.message = [w = weak_from_this()](const std::string& ch, std::string payload) {
            if (auto self = w.lock()) self->on_message(ch, std::move(payload));
        };
        h.up = [w = weak_from_this()] {
            if (auto self = w.lock()) self->on_bus_up();
        };
        h.down = [w = weak_from_this()] {
            if (auto self = w.lock()) spdlog::warn("cluster: the bus is down");
        };
        bus_ = std::make_unique<Bus>(hub_.ioc, hub_.cfg.bus,
                                     std::vector<std::string>{channel_of(node_), kAll}, h);
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
        db_.stop();
        timer_.cancel();
        if (bus_) bus_->stop();
        hub_.listings.on_change({});
        std::lock_guard lock(m_);
        remotes_.clear();
        links_.clear();
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
        std::string error;
        std::shared_ptr<Room> room;
        try {
            auto row = hub_.store->game(code);
            if (!row) return;
            room = hub_.factory.restore(*row, hub_.store->journal(code), error);
        } catch (const StoreError& e) {
            if (e.fault) {  // the store's trouble, not the game's: given up, claimed again later
                spdlog::warn("cluster: game {} cannot be read ({}); released", code, e.what());
                db.exec(
                    "UPDATE games SET owner = NULL WHERE code = $1 AND owner = $2 AND epoch = "
                    "$3",
                    {code, node_, num(epoch)});
                return;
            }
            error = e.what();
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (!room) {
            spdlog::critical("cluster: game {} does not replay and is quarantined: {}", code,
                             error);
            try {
                hub_.store->quarantine(code, error);
            } catch (const std::exception& e) {
                spdlog::critical("cluster: cannot quarantine game {}: {}", code, e.what());
            }
            return;
        }
        room->claimed(epoch);
        hub_.directory.add(code, room);
        room->resume();
        {
            std::lock_guard lock(m_);
            ++stats_.takeovers;
        }
        spdlog::info("cluster: game {} {} at epoch {}", code, at_start ? "restored" : "taken over",
                     epoch);
        adopt_routes(code);
        if (bus_)
            bus_->publish(kAll, bus::encode(bus::Moved{code, node_}));
        else  // at start: announced once the bus is up (the other nodes route to our new life)
            restored_.push_back(code);
    }

    // This node serves `code` now: its own connections that reached the game through another
    // node are served here from now on, and those that watched it are caught up at once from
    // the last version they saw (PROTOCOL.md "With several nodes": the missed events follow,
    // without the client asking). The "moved" announcement does this on the other nodes; this
    // node ignores its own. The requests the old owner left unanswered go with them.
    void adopt_routes(const std::string& code) {
        std::vector<std::pair<std::shared_ptr<Session>, std::vector<std::string>>> here;
        {
            std::lock_guard lock(m_);
            for (auto& [conn, link] : links_) {
                auto it = link.routes.find(code);
                if (it == link.routes.end()) continue;
                Route& r = it->second;
                std::vector<std::string> texts;
                if (r.watching) {
                    texts.push_back(catch_up_text(code, r));
                    ++stats_.catchups;
                }
                // What the old owner left unanswered runs here (a move it had applied is
                // answered with its ack again, Room::applied_before); its late answers to
                // them, should it wake, are dropped.
                take_back(r);
                for (auto& q : r.queue) {
                    if (q.seq) link.answered.insert(q.seq);
                    if (q.key != kSyncKey || q.seq) texts.push_back(std::move(q.text));
                }
                if (auto s = link.session.lock(); s && !texts.empty())
                    here.emplace_back(std::move(s), std::move(texts));
                link.routes.erase(it);
            }
        }
        for (auto& [s, texts] : here) s->handle_here(std::move(texts));
    }

    // What a route's client missed, asked of the game's (new) owner: the events after the last
    // version passed on, or the whole snapshot when the game was paused there (PROTOCOL.md:
    // "after a suspension the game sends its resume snapshot", on whatever node it resumes).
    static std::string catch_up_text(const std::string& code, const Route& r) {
        return watch_text(code, r.suspended ? -1 : r.last);
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
        publish_lobby();
        hub_.listings.flush_live();
        const auto now = std::chrono::steady_clock::now();
        if (now - last_alive_sent_ >= std::chrono::seconds(2)) {
            last_alive_sent_ = now;
            send_alive();
            drop_silent(now);
            ask_again(now);
        }
        timer_.expires_after(std::chrono::milliseconds(50));
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->tick();
        });
    }

    // Tells each node serving games to our connections which of them are still open.
    void send_alive() {
        std::map<std::string, std::vector<std::uint64_t>> by_node;
        {
            std::lock_guard lock(m_);
            for (auto& [conn, link] : links_)
                for (auto& [code, r] : link.routes)
                    if (!r.owner.empty()) by_node[r.owner].push_back(conn);
        }
        for (auto& [n, conns] : by_node)
            bus_->publish(channel_of(n), bus::encode(bus::Alive{me_, std::move(conns)}));
    }

    // Gaps still open 2 s after their catch-up was asked (it was lost with the bus, or the owner
    // moved meanwhile): asked again.
    void ask_again(SteadyTime now) {
        std::lock_guard lock(m_);
        for (auto& [conn, link] : links_)
            for (auto& [code, r] : link.routes)
                if (!r.held.empty() && now - r.asked > std::chrono::seconds(2))
                    ask_missing_locked(conn, code, r);
    }

    // Connections of nodes that stopped saying they are alive (dead, or cut off from us).
    void drop_silent(SteadyTime now) {
        std::vector<std::shared_ptr<BusSession>> gone;
        {
            std::lock_guard lock(m_);
            gone = take_remotes_locked([&](const RemoteKey& k, const BusSession& s) {
                auto h = heard_.find(k.first);
                const auto last = h == heard_.end() ? s.since : std::max(h->second, s.since);
                return now - last > std::chrono::seconds(10);
            });
        }
        for (auto& s : gone) s->gone();
    }

    // Takes the stand-ins `drop` names out of remotes_ (m_ held); the caller ends them (gone())
    // once the lock is released.
    using RemoteKey = std::pair<std::string, std::uint64_t>;  // (origin node, its connection)
    template <class Pred>
    std::vector<std::shared_ptr<BusSession>> take_remotes_locked(Pred drop) {
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

    void nodes_alive(std::set<std::string> alive) {
        std::vector<std::string> unlisted;
        std::vector<std::shared_ptr<BusSession>> gone;
        {
            std::lock_guard lock(m_);
            alive_nodes_ = alive;
            for (auto it = lobby_owner_.begin(); it != lobby_owner_.end();) {
                if (!alive.count(it->second)) {
                    unlisted.push_back(it->first);
                    it = lobby_owner_.erase(it);
                } else {
                    ++it;
                }
            }
            gone = take_remotes_locked([&](const RemoteKey& k, const BusSession&) {
                return !alive.count(node_of(k.first));
            });
        }
        for (auto& code : unlisted)
            if (!hub_.directory.find(code)) hub_.listings.remove(code, false);
        for (auto& s : gone) s->gone();
    }

    // ---------------------------------------------------------------- the lobby
    void listing_changed(const std::string& code) {
        std::lock_guard lock(m_);
        if ((listed_.count(code) || hub_.directory.find(code)) && dirty_.insert(code).second)
            dirty_order_.push_back(code);
    }

    // The body: the open entry's list message and the live entry's, a line each ("null" for
    // none), as the lobby would send them.
    void publish_lobby() {
        std::vector<std::string> batch;
        {
            std::lock_guard lock(m_);
            while (!dirty_order_.empty() && batch.size() < kLobbyPerTick) {
                batch.push_back(std::move(dirty_order_.front()));
                dirty_order_.pop_front();
                dirty_.erase(batch.back());
            }
        }
        for (const auto& code : batch) {
            std::optional<proto::OpenGame> open;
            std::optional<proto::LiveGame> live;
            if (hub_.directory.find(code)) {
                open = hub_.listings.open_entry(code);
                live = hub_.listings.live_entry(code);
            }
            {
                std::lock_guard lock(m_);
                if (open || live)
                    listed_.insert(code);
                else if (!listed_.erase(code))
                    continue;  // never published: nothing to withdraw
            }
            std::string body = open ? proto::to_text(proto::Lobby{{*open}}) : "null";
            body += '\n';
            body += live ? proto::to_text(proto::Live{{*live}}) : "null";
            bus_->publish(kAll, bus::encode(bus::Lobby{node_, code}, body));
        }
    }

    void on_lobby(const bus::Lobby& m, std::string_view body) {
        const std::string& code = m.code;
        const std::string& from = m.from;
        if (code.empty() || hub_.directory.find(code)) return;  // ours: we know better
        std::optional<proto::OpenGame> open;
        std::optional<proto::LiveGame> live;
        const auto nl = body.find('\n');
        if (nl == std::string_view::npos) return;
        if (auto m = proto::parse_server(body.substr(0, nl));
            auto* l = std::get_if<proto::ServerMsg>(&m))
            if (auto* lobby = std::get_if<proto::Lobby>(l); lobby && !lobby->games.empty())
                open = lobby->games[0];
        if (auto m = proto::parse_server(body.substr(nl + 1));
            auto* l = std::get_if<proto::ServerMsg>(&m))
            if (auto* lv = std::get_if<proto::Live>(l); lv && !lv->games.empty())
                live = lv->games[0];
        {
            std::lock_guard lock(m_);
            auto it = lobby_owner_.find(code);
            if (!open && !live) {
                // A withdrawal counts only from the node whose entry we hold.
                if (it == lobby_owner_.end() || it->second != from) return;
                lobby_owner_.erase(it);
            } else {
                lobby_owner_[code] = from;
            }
        }
        hub_.listings.set_open(code, open, false);
        hub_.listings.set_live(code, live, false, false);
    }

    // ---------------------------------------------------------------- forwarding (origin)
    void forward(const std::shared_ptr<Session>& from, const Player& p, const std::string& code,
                 std::string text, const proto::ClientMsg& msg) {
        std::string key = std::visit(
            [](const auto& m) -> std::string {
                if constexpr (requires { m.ref; }) {
                    if constexpr (std::is_same_v<decltype(m.ref), std::optional<std::string>>)
                        return m.ref.value_or("");
                }
                return "";
            },
            msg);
        if (key.empty() && (std::holds_alternative<proto::Watch>(msg) ||
                            std::holds_alternative<proto::JoinGame>(msg)))
            key = kSyncKey;
        std::lock_guard lock(m_);
        Link& link = links_[from->conn_id()];
        link.session = from;
        link.player = p;
        Route& r = link.routes[code];
        // The client's own watch says where it stands: what follows starts there (its
        // since_version, or the snapshot it asks for).
        if (auto* w = std::get_if<proto::Watch>(&msg)) {
            r.last = w->since_version.value_or(-1);
            r.held.clear();
        }
        r.queue.push_back(Req{link.next_seq++, std::move(text), std::move(key)});
        pump(from->conn_id(), code, r);
    }

    // The route of a connection's game, or null (m_ held).
    Route* route_locked(std::uint64_t conn, const std::string& code) {
        auto l = links_.find(conn);
        if (l == links_.end()) return nullptr;
        auto it = l->second.routes.find(code);
        return it == l->second.routes.end() ? nullptr : &it->second;
    }

    // Sends what waits, or looks the owner up (m_ held).
    void pump(std::uint64_t conn, const std::string& code, Route& r) {
        if (r.resolving) return;
        if (r.owner.empty()) return resolve(conn, code, r, std::chrono::milliseconds(0));
        while (!r.queue.empty()) {
            Req req = std::move(r.queue.front());
            r.queue.pop_front();
            const Link& link = links_[conn];
            // A watch or a join runs again (it only sends where the game stands).
            const bool sync = req.key == kSyncKey;
            bus::Req h{me_,
                       conn,
                       code,
                       sync ? 0 : req.seq,
                       sync ? std::string() : req.key,
                       link.player.id,
                       link.player.name,
                       link.player.account};
            ++stats_.forwarded_out;
            bus_->publish(channel_of(r.owner), bus::encode(h, req.text),
                          [self = shared_from_this(), conn, code, gen = r.gen](long n) {
                              self->sent(conn, code, gen, n);
                          });
            if (!req.key.empty()) {
                r.unanswered.emplace_back(req.key, req);
                if (r.unanswered.size() > 32) r.unanswered.pop_front();
            }
            r.inflight.push_back(std::move(req));
        }
    }

    static constexpr const char* kSyncKey = "#sync";
    // The ref of a server message, as serialize_server.cpp writes it ("" when none).
    static std::string ref_of(std::string_view text) {
        auto at = text.find("\"ref\":\"");
        if (at == std::string_view::npos) return {};
        auto end = text.find('"', at + 7);
        return end == std::string_view::npos ? std::string()
                                             : std::string(text.substr(at + 7, end - at - 7));
    }

    // Before sending a route's requests to another owner (or again after an outage): what the
    // old one may not have handled goes first, in the order it was sent: the requests still in
    // flight and those whose answer never came.
    static void take_back(Route& r) {
        ++r.gen;
        std::deque<Req> again;
        for (auto& [ref, req] : r.unanswered) again.push_back(std::move(req));
        for (auto& t : r.inflight)
            if (t.key.empty()) again.push_back(std::move(t));
        r.unanswered.clear();
        r.inflight.clear();
        for (auto it = again.rbegin(); it != again.rend(); ++it) r.queue.push_front(std::move(*it));
    }

    void sent(std::uint64_t conn, const std::string& code, std::uint64_t gen, long receivers) {
        std::lock_guard lock(m_);
        Route* route = route_locked(conn, code);
        if (!route || route->gen != gen) return;
        Route& r = *route;
        if (receivers > 0) {
            if (!r.inflight.empty()) r.inflight.pop_front();
            return;
        }
        // Nobody listens on the owner's channel (it died, or the bus is down): the requests go
        // again, in order, once the owner is known again.
        reroute(conn, code, r, std::chrono::milliseconds(250));
    }

    // The route's owner is unknown again: what it may not have handled goes first to the next
    // one, looked up after `delay` (m_ held).
    void reroute(std::uint64_t conn, const std::string& code, Route& r,
                 std::chrono::milliseconds delay) {
        take_back(r);
        r.owner.clear();
        resolve(conn, code, r, delay);
    }

    // Looks the game's owner up in PostgreSQL after `delay` (m_ held).
    void resolve(std::uint64_t conn, const std::string& code, Route& r,
                 std::chrono::milliseconds delay) {
        r.resolving = true;
        auto job = [self = shared_from_this(), conn, code](pg::Blocking& db) {
            std::optional<std::string> owner;
            bool live = false, found = false, unfinished = false;
            try {
                auto rows = db.exec(
                                  "SELECT g.owner, g.status IN ('open', 'playing'), EXISTS "
                                  "(SELECT 1 FROM nodes n WHERE n.id = g.owner AND "
                                  "n.lease_until > now()) FROM games g WHERE g.code = $1",
                                  {code})
                                .rows;
                if (!rows.empty()) {
                    found = true;
                    owner = rows[0][0];
                    unfinished = rows[0][1] == std::optional<std::string>("t");
                    live = rows[0][2] == std::optional<std::string>("t");
                }
                if (found && unfinished && !live) self->claim(db, false);  // nobody serves it
            } catch (const std::exception& e) {
                spdlog::warn("cluster: looking up game {}: {}", code, e.what());
                asio::post(self->strand_, [self, conn, code] { self->resolved(conn, code, {}); });
                throw;
            }
            Lookup res{found, unfinished, live, owner.value_or("")};
            asio::post(self->strand_, [self, conn, code, res] { self->resolved(conn, code, res); });
        };
        if (delay.count() == 0) return db_.post(std::move(job));
        auto t = std::make_shared<asio::steady_timer>(strand_, delay);
        t->async_wait([self = shared_from_this(), t, job](boost::system::error_code) mutable {
            self->db_.post(std::move(job));
        });
    }

    struct Lookup {
        bool found = false, unfinished = false, live = false;
        std::string owner;
        bool failed = false;
    };

    void resolved(std::uint64_t conn, const std::string& code, std::optional<Lookup> res) {
        std::shared_ptr<Session> session;
        std::vector<std::string> here;
        std::string error;
        proto::Err code_err = proto::Err::NoSuchGame;
        {
            std::lock_guard lock(m_);
            auto l = links_.find(conn);
            if (l == links_.end()) return;
            auto it = l->second.routes.find(code);
            if (it == l->second.routes.end()) return;
            Route& r = it->second;
            r.resolving = false;
            session = l->second.session.lock();
            if (!session) return;
            const bool mine = res && res->owner == node_;
            if (res && res->found && !mine && res->live && !res->owner.empty()) {
                r.owner = res->owner;
                r.attempts = 0;
                if (r.watching) {
                    r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
                    ++stats_.catchups;
                }
                pump(conn, code, r);
                return;
            }
            if (mine && hub_.directory.find(code)) {  // claimed here meanwhile
                for (auto& q : r.queue) here.push_back(std::move(q.text));
                if (r.watching) here.insert(here.begin(), catch_up_text(code, r));
                l->second.routes.erase(it);
            } else if (res && (!res->found || (!res->unfinished && !res->live) ||
                               (mine && !res->unfinished))) {
                error = "no game with code " + code;
                l->second.routes.erase(it);
            } else if (++r.attempts < 120) {  // ~30 s: the owner's lease runs out meanwhile
                resolve(conn, code, r, std::chrono::milliseconds(250));
                return;
            } else {
                code_err = proto::Err::StoreUnavailable;
                error = "the server holding game " + code +
                        " cannot be reached right now; try again in a moment";
                l->second.routes.erase(it);
            }
        }
        if (!here.empty()) return session->handle_here(std::move(here));
        if (!error.empty())
            session->deliver(std::make_shared<const std::string>(proto::to_text(
                proto::ErrorMsg{code_err, error, std::nullopt, std::nullopt, std::nullopt})));
    }

    void closed(Session& s, const std::string& player_id) {
        std::set<std::string> owners;
        {
            std::lock_guard lock(m_);
            auto l = links_.find(s.conn_id());
            if (l != links_.end()) {
                for (auto& [code, r] : l->second.routes)
                    if (!r.owner.empty()) owners.insert(r.owner);
                links_.erase(l);
            }
        }
        for (const auto& n : owners)
            bus_->publish(channel_of(n), bus::encode(bus::Gone{me_, s.conn_id()}));
        bool sought = false;
        {
            std::lock_guard lock(m_);
            sought = seekers_.erase(s.conn_id()) > 0;
        }
        if (sought && !player_id.empty())
            db_.post([node = node_, conn = s.conn_id(), player_id](pg::Blocking& db) {
                db.exec("DELETE FROM seeks WHERE player_id = $1 AND node = $2 AND conn = $3",
                        {player_id, node, num(std::int64_t(conn))});
            });
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
                    if constexpr (std::is_same_v<T, bus::Req>) on_request(m, body);
                    if constexpr (std::is_same_v<T, bus::Out>) on_out(m, body);
                    if constexpr (std::is_same_v<T, bus::Gone>) on_gone(m.from, m.conn);
                    if constexpr (std::is_same_v<T, bus::Alive>) on_alive(m);
                    if constexpr (std::is_same_v<T, bus::NotMine>) on_notmine(m);
                    if constexpr (std::is_same_v<T, bus::Close>) on_close(m);
                    if constexpr (std::is_same_v<T, bus::Back>) on_back(m.from);
                    if constexpr (std::is_same_v<T, bus::Lobby>)
                        if (m.from != node_) on_lobby(m, body);
                    if constexpr (std::is_same_v<T, bus::Moved>)
                        if (m.owner != node_) on_moved(m.code, m.owner);
                    if constexpr (std::is_same_v<T, bus::Sync>)
                        if (m.from != node_) resync_lobby();
                    if constexpr (std::is_same_v<T, bus::End>)
                        if (m.from != node_)
                            for (auto& c : hub_.players.connections(m.player)) c->end(m.reason);
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

    void on_request(const bus::Req& m, std::string_view body) {
        std::shared_ptr<BusSession> s;
        {
            std::lock_guard lock(m_);
            ++stats_.forwarded_in;
            s = remote_locked(m.from, m.conn, Player{m.player_id, m.player_name, m.account});
        }
        s->request(std::string(body), m.seq, m.ref);
    }

    std::shared_ptr<BusSession> remote_locked(const std::string& origin, std::uint64_t conn,
                                              const Player& p) {
        auto& s = remotes_[{origin, conn}];
        if (!s) s = std::make_shared<BusSession>(hub_, *this, origin, conn, p);
        return s;
    }

    // What the owner sends connections of ours: one message for all those it goes to (a
    // game's event for its watchers here crosses the bus once, "conns"), or one ("conn").
    void on_out(const bus::Out& m, std::string_view body) {
        const auto seq = m.seq;
        const std::string& from = m.from;
        const auto& conns = m.conns;
        if (m.to != me_) {  // this node's previous life
            for (auto conn : conns)
                bus_->publish(channel_of(from), bus::encode(bus::Gone{m.to, conn}));
            return;
        }
        const auto v = versioned(body);
        const auto msg = std::make_shared<const std::string>(body);  // one copy for them all
        for (auto conn : conns) out_to(conn, seq, from, v, msg);
    }

    void out_to(std::uint64_t conn, std::uint64_t seq, const std::string& from,
                const std::optional<Versioned>& v, const Msg& body) {
        std::shared_ptr<Session> session;
        bool matched = false;
        std::vector<Msg> pass;  // what the client gets of it, in order
        {
            std::lock_guard lock(m_);
            auto l = links_.find(conn);
            if (l != links_.end()) session = l->second.session.lock();
            if (!session) session = seekers_lookup_locked(conn);
            if (session && seq && !answer_locked(conn, seq, from)) return;
            if (session) {
                if (v && !v->unversioned) {
                    Link& link = links_[conn];
                    link.session = session;
                    Route& r = link.routes[v->game];
                    if (r.owner.empty() && !r.resolving) r.owner = from;
                    r.watching = true;
                    std::erase_if(r.unanswered, [](const auto& u) { return u.first == kSyncKey; });
                    order_locked(conn, v->game, r, *v, body, pass);
                } else {
                    if (auto game = paused_game(*body))
                        if (Route* r = route_locked(conn, *game)) r->suspended = true;
                    pass.push_back(body);
                }
                matched = body->rfind("{\"code\":", 0) == 0 &&
                          body->find("\"type\":\"matched\"") != std::string::npos;
            }
        }
        if (!session) {  // closed meanwhile: the owner forgets it
            bus_->publish(channel_of(from), bus::encode(bus::Gone{me_, conn}));
            return;
        }
        if (matched) session->match_done();
        for (auto& m : pass) session->deliver(std::move(m));
    }

    // The answer to request `seq` of connection `conn` came from node `from`: false when it is
    // not to be passed on (m_ held). Once per request: a second answer (the owner answered a
    // re-send from its memory while the first was on its way) is dropped, and so is one from a
    // node that no longer serves the game while the request went again to its new owner (a
    // stalled owner woken after the takeover, refusing what the new owner ran).
    bool answer_locked(std::uint64_t conn, std::uint64_t seq, const std::string& from) {
        auto l = links_.find(conn);
        if (l == links_.end()) return true;
        Link& link = l->second;
        if (link.answered.count(seq)) {
            ++stats_.answers_dropped;
            return false;
        }
        for (auto& [code, r] : link.routes) {
            auto is = [seq](const auto& u) { return u.second.seq == seq; };
            auto it = std::find_if(r.unanswered.begin(), r.unanswered.end(), is);
            const bool queued = std::any_of(r.queue.begin(), r.queue.end(),
                                            [seq](const Req& q) { return q.seq == seq; });
            if (it == r.unanswered.end() && !queued) continue;
            if (!r.owner.empty() && r.owner != from) {
                ++stats_.answers_dropped;
                return false;
            }
            if (it != r.unanswered.end()) r.unanswered.erase(it);
            std::erase_if(r.queue, [seq](const Req& q) { return q.seq == seq; });
            break;
        }
        link.answered.insert(seq);
        while (link.answered.size() > 256) link.answered.erase(link.answered.begin());
        return true;
    }

    // A versioned event or a snapshot of `code` for a route's client (m_ held): passed on in
    // version order without a gap. A snapshot starts the count again; an event at or below the
    // last one passed on is a repeat (a catch-up overlapping the live events) and dropped; one
    // above the next waits in `held` while the missing ones are asked of the owner.
    void order_locked(std::uint64_t conn, const std::string& code, Route& r, const Versioned& v,
                      const Msg& body, std::vector<Msg>& pass) {
        Msg msg = body;
        if (v.snapshot) {
            r.last = v.version;
            r.suspended = body->find("\"status\":\"suspended\"") != std::string::npos;
            pass.push_back(std::move(msg));
        } else if (r.last < 0 || v.version == r.last + 1) {
            r.last = v.version;
            pass.push_back(std::move(msg));
        } else if (v.version <= r.last) {
            return;
        } else {
            const bool first = r.held.empty();
            r.held.emplace(v.version, std::move(msg));
            if (r.held.size() > kHeldMax) {  // far behind: start again from a snapshot
                r.held.clear();
                r.last = -1;
                r.suspended = true;
            }
            if (first) ask_missing_locked(conn, code, r);
            return;
        }
        while (!r.held.empty() && r.held.begin()->first <= r.last + 1) {
            auto it = r.held.begin();
            if (it->first == r.last + 1) {
                r.last = it->first;
                pass.push_back(std::move(it->second));
            }
            r.held.erase(it);
        }
    }
    static constexpr std::size_t kHeldMax = 2048;

    // The owner is asked for what a route's client missed (m_ held).
    void ask_missing_locked(std::uint64_t conn, const std::string& code, Route& r) {
        r.asked = std::chrono::steady_clock::now();
        r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
        ++stats_.catchups;
        pump(conn, code, r);
    }

    void on_gone(const std::string& from, std::uint64_t conn) {
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

    void on_alive(const bus::Alive& m) {
        const std::string& from = m.from;
        const std::set<std::uint64_t> conns(m.conns.begin(), m.conns.end());
        std::vector<std::shared_ptr<BusSession>> gone;
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
        }
        for (auto& s : gone) s->gone();
    }

    // The owner does not hold the game (any more): look it up again.
    void on_notmine(const bus::NotMine& m) {
        if (m.to != me_) return;  // for this node's previous life
        const auto conn = m.conn;
        const std::string &code = m.code, &from = m.from;
        std::lock_guard lock(m_);
        Route* route = route_locked(conn, code);
        if (!route || route->owner != from || route->resolving) return;
        reroute(conn, code, *route, std::chrono::milliseconds(100));
    }

    void on_close(const bus::Close& m) {
        if (m.to != me_) return;
        std::shared_ptr<Session> s;
        {
            std::lock_guard lock(m_);
            auto l = links_.find(m.conn);
            if (l != links_.end()) s = l->second.session.lock();
        }
        if (s) s->close(m.reason, false);
    }

    // A game changed hands: requests go to the new owner, which replays what we missed.
    void on_moved(const std::string& code, const std::string& owner) {
        if (auto room = hub_.directory.find(code))  // we held it: we stalled, it is not ours
            room->lost(std::string(kFenced) + "game " + code + " was taken over by node " + owner);
        std::lock_guard lock(m_);
        for (auto& [conn, link] : links_) {
            auto it = link.routes.find(code);
            if (it == link.routes.end()) continue;
            Route& r = it->second;
            if (r.resolving) continue;  // also from the same node id: a restarted node's new life
            take_back(r);
            r.owner = owner;
            r.attempts = 0;
            if (r.watching) {
                r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
                ++stats_.catchups;
            }
            pump(conn, code, r);
        }
    }

    // Node `from` was cut off from the bus and is back: what it published meanwhile (its games'
    // events, the answers to our requests) never came. Its routes catch up and send again what
    // is unanswered (it answers those from memory, PROTOCOL.md "With several nodes").
    void on_back(const std::string& from) {
        if (from.empty() || from == node_) return;
        std::lock_guard lock(m_);
        for (auto& [conn, link] : links_)
            for (auto& [code, r] : link.routes) {
                if (r.owner != from || r.resolving) continue;
                take_back(r);
                if (r.watching) {
                    r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
                    ++stats_.catchups;
                }
                pump(conn, code, r);
            }
    }

    // The bus is back (or up for the first time): whatever was published meanwhile is lost,
    // so every forwarded game is looked up again and replayed from its last version, and the
    // lobby is exchanged whole.
    void on_bus_up() {
        spdlog::info("cluster: the bus is up");
        for (const auto& code : std::exchange(restored_, {}))
            bus_->publish(kAll, bus::encode(bus::Moved{code, node_}));
        {
            std::lock_guard lock(m_);
            for (auto& [conn, link] : links_)
                for (auto& [code, r] : link.routes) {
                    if (!r.resolving) reroute(conn, code, r, std::chrono::milliseconds(0));
                }
        }
        resync_lobby();
        bus_->publish(kAll, bus::encode(bus::Sync{node_}));
        bus_->publish(kAll, bus::encode(bus::Back{node_}));
    }

    void resync_lobby() {
        std::lock_guard lock(m_);
        for (const auto& room : hub_.directory.all())
            if (dirty_.insert(room->code()).second) dirty_order_.push_back(room->code());
    }

    // ---------------------------------------------------------------- quick match
    std::map<std::uint64_t, std::weak_ptr<Session>> seekers_;
    std::shared_ptr<Session> seekers_lookup_locked(std::uint64_t conn) {
        auto it = seekers_.find(conn);
        if (it == seekers_.end()) return nullptr;
        auto s = it->second.lock();
        if (!s) seekers_.erase(it);
        return s;
    }

    struct Found {
        std::string player_id, name, node;
        bool account = false;
        std::uint64_t conn = 0;
        std::optional<int> rating;
    };

    // The SQL range of a waiting request, as Matchmaker::range.
    // Matchmaker::range() in SQL, of a seek's row.
    inline static const std::string kRange = fmt::format(
        "({} + {} * LEAST({}, GREATEST(0, floor(extract(epoch FROM clock_timestamp() - since)))))",
        Matchmaker::kRangeBase, Matchmaker::kRangePerSecond, Matchmaker::kRangeWidenSeconds);

    void seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
              const std::string& pool, std::optional<int> rating, bool retry) {
        {
            std::lock_guard lock(m_);
            seekers_[s->conn_id()] = s;
        }
        db_.post([self = shared_from_this(), w = std::weak_ptr<Session>(s), p, m, pool, rating,
                  retry, conn = s->conn_id()](pg::Blocking& db) {
            std::optional<Found> found;
            bool waiting = false;
            db.exec("BEGIN");
            try {
                db.exec("SELECT pg_advisory_xact_lock(hashtext($1))", {pool});
                std::string mine_range = "100";
                if (retry) {
                    auto me = db.exec(std::string("SELECT ") + kRange +
                                          " FROM seeks WHERE player_id = $1 AND node = $2 AND "
                                          "conn = $3",
                                      {p.id, self->me_, num(std::int64_t(conn))})
                                  .rows;
                    if (me.empty()) {  // withdrawn or paired meanwhile
                        db.exec("COMMIT");
                        return;
                    }
                    mine_range = me[0][0].value_or("100");
                } else {
                    db.exec("DELETE FROM seeks WHERE player_id = $1", {p.id});
                }
                const std::string r = rating ? std::to_string(*rating) : std::string();
                auto rows =
                    db.exec(std::string("SELECT player_id, player_name, account, node, conn, "
                                        "rating FROM seeks WHERE pool = $1 AND player_id <> $2 "
                                        "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = "
                                        "split_part(seeks.node, '@', 1) AND n.lease_until > "
                                        "now()) AND ") +
                                (rating ? std::string("rating IS NOT NULL AND abs(rating - ") + r +
                                              ") <= GREATEST(" + kRange + ", " + mine_range + ")"
                                        : std::string("rating IS NULL")) +
                                " ORDER BY since LIMIT 1",
                            {pool, p.id})
                        .rows;
                if (!rows.empty()) {
                    Found f;
                    f.player_id = *rows[0][0];
                    f.name = rows[0][1].value_or("");
                    f.account = rows[0][2] == std::optional<std::string>("t");
                    f.node = rows[0][3].value_or("");
                    f.conn = std::stoull(rows[0][4].value_or("0"));
                    if (rows[0][5]) f.rating = std::stoi(*rows[0][5]);
                    db.exec("DELETE FROM seeks WHERE player_id = $1 OR player_id = $2",
                            {f.player_id, p.id});
                    found = f;
                } else if (!retry) {
                    db.exec(
                        "INSERT INTO seeks (player_id, pool, node, conn, player_name, account, "
                        "rating) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                        {p.id, pool, self->me_, num(std::int64_t(conn)), p.name,
                         p.account ? "true" : "false",
                         rating ? std::optional<std::string>(r) : std::nullopt});
                    waiting = true;
                } else {
                    waiting = true;
                }
                db.exec("COMMIT");
            } catch (...) {
                try {
                    db.exec("ROLLBACK");
                } catch (...) {
                }
                if (auto s = w.lock())
                    s->deliver(std::make_shared<const std::string>(proto::to_text(proto::ErrorMsg{
                        proto::Err::StoreUnavailable,
                        "the quick-match pool cannot be reached right now; ask again", std::nullopt,
                        std::nullopt, std::nullopt})));
                throw;
            }
            auto s = w.lock();
            if (!s) return;
            if (found) {
                Seek opp;
                opp.player = Player{found->player_id, found->name, found->account};
                opp.key = pool;
                opp.rating = found->rating;
                std::shared_ptr<Member> who;
                {
                    std::lock_guard lock(self->m_);
                    if (found->node == self->me_)
                        who = self->seekers_lookup_locked(found->conn);
                    else
                        who = self->remote_locked(found->node, found->conn, opp.player);
                }
                opp.who = who;
                if (!who)  // its connection closed meanwhile: nobody to play; ask again
                    return s->match_waiting(m);
                s->match_found(m, opp);
            } else if (waiting && !retry) {
                s->match_waiting(m);
            } else if (waiting) {
                s->match_waiting_again(m);
            }
        });
    }

    void withdraw(const std::string& player_id) {
        db_.post([player_id](pg::Blocking& db) {
            db.exec("DELETE FROM seeks WHERE player_id = $1", {player_id});
        });
    }

    Stats stats() const {
        std::lock_guard lock(m_);
        Stats s = stats_;
        s.remote_connections = remotes_.size();
        for (auto& [c, l] : links_) s.routes += l.routes.size();
        s.nodes_alive = alive_nodes_.size();
        s.out_messages = stats_out_messages_;
        s.out_deliveries = stats_out_deliveries_;
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

    // ---------------------------------------------------------------- the owner's replies
    // What the stand-ins send their origins waits here for the strand, in the order it was
    // sent, so that a message a room sends several connections of one node (an event for its
    // watchers there) crosses the bus once: it joins the entry already waiting for that node
    // with that message, unless one of the connection's own later messages waits after it.
    struct Outgoing {
        std::string origin;
        Msg msg;                           // an `out`'s body (null: `raw` is the payload)
        std::uint64_t seq = 0;             // the request it answers (then one connection)
        std::vector<std::uint64_t> conns;  // the connections it goes to
        std::string raw;
    };
    std::mutex out_m_;
    std::vector<Outgoing> outgoing_;
    std::map<std::pair<std::string, const std::string*>, std::size_t> joinable_;
    std::map<std::pair<std::string, std::uint64_t>, std::size_t> last_of_conn_;
    bool out_posted_ = false;

    void send_out(const std::string& origin, std::uint64_t conn, const Msg& m,
                  std::uint64_t seq = 0) {
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
        queue_locked(Outgoing{origin, m, seq, {conn}, {}});
    }
    void send_close(const std::string& origin, std::uint64_t conn, const std::string& reason) {
        std::lock_guard lock(out_m_);
        queue_locked(Outgoing{
            origin, nullptr, 0, {conn}, bus::encode(bus::Close{node_, origin, conn, reason})});
    }
    void send_notmine(const std::string& origin, std::uint64_t conn, const std::string& code) {
        std::lock_guard lock(out_m_);
        queue_locked(Outgoing{
            origin, nullptr, 0, {conn}, bus::encode(bus::NotMine{node_, origin, conn, code})});
    }
    void queue_locked(Outgoing o) {
        const std::size_t at = outgoing_.size();
        last_of_conn_[{o.origin, o.conns.front()}] = at;
        if (o.msg && !o.seq) joinable_[{o.origin, o.msg.get()}] = at;
        outgoing_.push_back(std::move(o));
        if (std::exchange(out_posted_, true)) return;
        // Behind what is queued already (a room's crowd of spectators is sent in a handler
        // after its players': the event for both goes as one message).
        asio::post(strand_, [w = weak_from_this()] {
            if (auto self = w.lock())
                asio::post(self->strand_, [w] {
                    if (auto again = w.lock()) again->flush_out();
                });
        });
    }
    void flush_out() {
        std::vector<Outgoing> batch;
        {
            std::lock_guard lock(out_m_);
            batch.swap(outgoing_);
            joinable_.clear();
            last_of_conn_.clear();
            out_posted_ = false;
        }
        if (!bus_) return;
        for (auto& o : batch) {
            if (!o.msg) {
                bus_->publish(channel_of(o.origin), std::move(o.raw));
                continue;
            }
            ++stats_out_messages_;
            stats_out_deliveries_ += o.conns.size();
            bus_->publish(
                channel_of(o.origin),
                bus::encode(bus::Out{node_, o.origin, std::move(o.conns), o.seq}, *o.msg));
        }
    }
    std::atomic<std::uint64_t> stats_out_messages_{0}, stats_out_deliveries_{0};
};

void BusSession::request(std::string text, std::uint64_t seq, std::string ref) {
    if (seq) {
        Msg again;
        {
            std::lock_guard lock(ran_m_);
            auto it = std::find_if(ran_.begin(), ran_.end(),
                                   [seq](const Ran& r) { return r.seq == seq; });
            if (it != ran_.end()) {
                if (!it->answer) return;  // running, or nothing to answer: once is enough
                again = it->answer;
            } else {
                ran_.push_back(Ran{seq, std::move(ref), nullptr});
                if (ran_.size() > kRemembered) ran_.pop_front();
            }
        }
        if (again) return cluster_.send_out(origin_, conn_, again, seq);
    }
    asio::post(ex_, [self = std::static_pointer_cast<BusSession>(shared_from_this()),
                     text = std::move(text)] { self->forwarded(text); });
}

void BusSession::deliver(Msg m) {
    std::uint64_t seq = 0;
    if (m->find("\"ref\":\"") != std::string::npos) {
        const std::string ref = Cluster::Impl::ref_of(*m);
        std::lock_guard lock(ran_m_);
        for (auto& r : ran_)  // the oldest request with this ref still unanswered
            if (!r.answer && !r.ref.empty() && r.ref == ref) {
                r.answer = m;
                seq = r.seq;
                break;
            }
    }
    cluster_.send_out(origin_, conn_, m, seq);
}
void BusSession::close(std::string reason, bool) {
    cluster_.send_close(origin_, conn_, reason);
}
void BusSession::moved(const std::string& code) {
    cluster_.send_notmine(origin_, conn_, code);
}
bool BusSession::missing(const std::string& code) {
    cluster_.send_notmine(origin_, conn_, code);
    return true;
}

Cluster::Cluster(Hub& hub) : impl_(std::make_shared<Impl>(hub)) {}
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
void Cluster::forward(const std::shared_ptr<Session>& from, const Player& p,
                      const std::string& code, std::string text, const proto::ClientMsg& msg) {
    impl_->forward(from, p, code, std::move(text), msg);
}
void Cluster::closed(Session& s, const std::string& player_id) {
    impl_->closed(s, player_id);
}
void Cluster::seek(const std::shared_ptr<Session>& s, const Player& p, const proto::QuickMatch& m,
                   const std::string& pool, std::optional<int> rating) {
    impl_->seek(s, p, m, pool, rating, false);
}
void Cluster::retry_seek(const std::shared_ptr<Session>& s, const Player& p,
                         const proto::QuickMatch& m, const std::string& pool,
                         std::optional<int> rating) {
    impl_->seek(s, p, m, pool, rating, true);
}
void Cluster::withdraw(const std::string& player_id) {
    impl_->withdraw(player_id);
}
void Cluster::end_player(const std::string& player_id, const std::string& reason) {
    impl_->bus_->publish(kAll, bus::encode(bus::End{impl_->node_, player_id, reason}));
}
Cluster::Stats Cluster::stats() const {
    return impl_->stats();
}

}  // namespace tf::server
