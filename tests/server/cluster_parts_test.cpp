// The cluster in process (issue 30): two nodes, each a Hub with a PostgreSQL store on one fresh
// database of the test cluster and a Cluster whose bus is in memory (tests/server/memory_bus.h),
// and connections that are Sessions fed the client's text and recording what they get. The bus
// faults are exact here (this message lost, that node cut), so each promise of PROTOCOL.md
// "With several nodes" is checked at the fault that tests it, without processes or timing luck.
// Skipped without TF_TEST_DATABASE_URL (tests/postgres.cmake).
#include <doctest/doctest.h>

#include <unistd.h>
#include <boost/asio/executor_work_guard.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/json.h"
#include "common/playout.h"
#include "server/cluster/cluster.h"
#include "server/cluster/cluster_core.h"
#include "server/session/hub.h"
#include "server/session/session.h"
#include "server/store/pg_store.h"
#include "tests/server/memory_bus.h"
#include "tests/support/pg_test_db.h"

namespace tf::server::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace asio = boost::asio;

// A client's connection inside the process: what the client says goes through on_text (credits,
// parsing, dispatch: the transports' path), what the server sends is kept in order.
class Conn : public Session {
  public:
    explicit Conn(Hub& hub) : Session(hub, "127.0.0.1"), ex_(asio::make_strand(hub.ioc)) {}
    void say(const json& m) {
        asio::post(ex_, [self = std::static_pointer_cast<Conn>(shared_from_this()), t = m.dump()] {
            self->on_text(t);
        });
    }
    void deliver(Msg m) override {
        std::lock_guard lock(m_);
        got_.push_back(json::parse(*m));
        cv_.notify_all();
    }
    void close(std::string reason, bool) override {
        std::lock_guard lock(m_);
        closed_ = reason;
        cv_.notify_all();
    }
    // The first message from `from` on that `pred` accepts (waiting up to `wait`), or null.
    std::optional<json> wait(const std::function<bool(const json&)>& pred,
                             std::chrono::milliseconds wait = 10s, std::size_t from = 0) {
        std::unique_lock lock(m_);
        std::optional<json> found;
        cv_.wait_for(lock, wait, [&] {
            for (std::size_t i = from; i < got_.size(); ++i)
                if (pred(got_[i])) {
                    found = got_[i];
                    return true;
                }
            return false;
        });
        return found;
    }
    std::vector<json> got() {
        std::lock_guard lock(m_);
        return got_;
    }
    // The connection ends (as a socket's would).
    void hang_up() {
        asio::post(ex_, [self = std::static_pointer_cast<Conn>(shared_from_this())] {
            self->on_closed();
        });
    }

  protected:
    Store::Executor executor() override { return ex_; }
    const char* transport() const override { return "test"; }

  private:
    asio::strand<asio::io_context::executor_type> ex_;
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<json> got_;
    std::string closed_;
};

auto of_type(const std::string& type, const std::string& ref = "") {
    return [=](const json& m) {
        return m.value("type", "") == type && (ref.empty() || m.value("ref", "") == ref);
    };
}
auto event_at(std::int64_t version) {
    return [=](const json& m) {
        return m.value("type", "") == "event" && m.value("version", std::int64_t(-1)) == version;
    };
}

// The versioned events a connection got, in the order it got them (a spectator count carries
// the version it came at, and is not one of them).
std::vector<std::int64_t> event_versions(Conn& c) {
    std::vector<std::int64_t> vs;
    for (const auto& m : c.got())
        if (m.value("type", "") == "event" && m.value("kind", "") != "spectators")
            vs.push_back(m["version"]);
    return vs;
}

struct Node {
    Node(asio::io_context& io, MemoryBus& bus, const std::string& name, const std::string& url) {
        Config cfg;
        cfg.bus = "memory";
        cfg.node_id = name;
        cfg.lease_ms = 3000;
        cfg.database_url = url;
        cfg.rate_per_second = 1000;
        cfg.live_interval_ms = 50;  // spectator counts settle within the tests' pauses
        hub = std::make_unique<Hub>(io, cfg, open_pg_store(PgOptions{url}));
        cluster = std::make_unique<Cluster>(*hub, bus.maker(name));
        hub->peers = cluster.get();
        REQUIRE(cluster->start());
    }
    std::shared_ptr<Conn> connect(const std::string& name) {
        auto c = std::make_shared<Conn>(*hub);
        c->say({{"type", "hello"}, {"version", 1}, {"name", name}});
        REQUIRE(c->wait(of_type("welcome")));
        return c;
    }
    std::unique_ptr<Hub> hub;
    std::unique_ptr<Cluster> cluster;
};

// Two nodes on one database and one bus in memory, their io_context on two threads.
struct TwoNodes {
    TwoNodes() {
        base = test::pg_test_url();
        if (base.empty()) return;
        db = "tf_parts_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
        test::pg_create_database(base, db);
        const std::string url = test::pg_with_dbname(base, db);
        for (int i = 0; i < 2; ++i) threads.emplace_back([this] { io.run(); });
        n1.emplace(io, bus, "n1", url);
        n2.emplace(io, bus, "n2", url);
    }
    ~TwoNodes() {
        if (base.empty()) return;
        for (auto* n : {&n1, &n2})
            if (*n) (*n)->hub->ready = false;
        work.reset();
        io.stop();
        for (auto& t : threads) t.join();
        for (auto* n : {&n1, &n2})
            if (*n) {
                (*n)->cluster->stop();
                (*n)->hub->peers = &(*n)->hub->alone;
            }
        n2.reset();
        n1.reset();
        try {
            test::pg_drop_database(base, db);
        } catch (const std::exception& e) {
            MESSAGE(e.what());
        }
    }
    bool skipped() const { return base.empty(); }

    // ann (silver) creates a game on n1, bob joins it from n2; ann's setup is acknowledged and
    // bob saw it: the game's code.
    std::string seated_game(Conn& ann, Conn& bob) {
        ann.say({{"type", "create_game"},
                 {"time_control", nullptr},
                 {"color", "silver"},
                 {"public", false},
                 {"ref", "new"}});
        auto created = ann.wait(of_type("game_created", "new"));
        REQUIRE(created);
        const std::string code = (*created)["code"];
        bob.say({{"type", "join_game"}, {"code", code}});
        REQUIRE(bob.wait(of_type("snapshot")));
        REQUIRE(ann.wait(of_type("event")));  // bob's join
        ann.say(setup_msg(code, "ann-setup"));
        auto ack = ann.wait(of_type("ack", "ann-setup"));
        REQUIRE(ack);
        version = (*ack)["version"];
        REQUIRE(bob.wait(event_at(version)));
        return code;
    }
    // The next setup of the game (silver's, then bronze's), as the client would send it.
    json setup_msg(const std::string& code, const std::string& ref) {
        const Setup s = random_setup(game, rng);
        REQUIRE(!game.apply_setup(game.to_move(), s));
        return {{"type", "setup"}, {"game", code}, {"setup", to_json(s)}, {"ref", ref}};
    }

    inline static int counter = 0;
    std::string base, db;
    asio::io_context io{2};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{
        asio::make_work_guard(io)};
    std::vector<std::thread> threads;
    MemoryBus bus{io};
    std::optional<Node> n1, n2;
    Game game{Variant{}};
    std::int64_t version = 0;  // the last acknowledged
    Rng rng{7};
};

}  // namespace

TEST_CASE("cluster in process: a forwarded request whose answer the bus lost is answered once") {
    TwoNodes c;
    if (c.skipped()) return;
    auto ann = c.n1->connect("ann");
    auto bob = c.n2->connect("bob");
    const std::string code = c.seated_game(*ann, *bob);

    // Bob's setup crosses to n1 and runs there; everything n1 sends n2 is lost meanwhile.
    c.bus.drop("n1", cluster_detail::channel_of("n2"));
    const std::size_t before = bob->got().size();
    bob->say(c.setup_msg(code, "bob-setup"));
    REQUIRE(ann->wait(event_at(c.version + 1)));
    std::this_thread::sleep_for(200ms);
    CHECK(bob->got().size() == before);  // nothing reached bob: neither the ack nor the event

    // n2's bus goes down and comes back (a Redis restart, as n2 sees it); n1's answers pass
    // again. n2 sends its unanswered request again; n1 answers it from its memory, and the
    // event bob missed follows.
    c.bus.cut("n2");
    c.bus.drop("n1", cluster_detail::channel_of("n2"), false);
    c.bus.mend("n2");
    auto ack = bob->wait(of_type("ack", "bob-setup"), 10s, before);
    REQUIRE(ack);
    const std::int64_t v = (*ack)["version"];
    CHECK(bob->wait(event_at(v), 10s, before));
    std::this_thread::sleep_for(500ms);  // a second answer would come now
    int answers = 0;
    for (const auto& m : bob->got())
        if (m.value("ref", "") == "bob-setup") ++answers;
    CHECK(answers == 1);
    auto versions = event_versions(*bob);
    for (std::size_t i = 1; i < versions.size(); ++i) CHECK(versions[i] == versions[i - 1] + 1);
}

TEST_CASE("cluster in process: the owner's own bus outage is caught up by its watchers") {
    TwoNodes c;
    if (c.skipped()) return;
    auto ann = c.n1->connect("ann");
    auto bob = c.n2->connect("bob");
    const std::string code = c.seated_game(*ann, *bob);
    auto cat = c.n2->connect("cat");
    cat->say({{"type", "watch"}, {"code", code}});
    REQUIRE(cat->wait(of_type("snapshot")));

    // n1, the owner, loses the bus: bob's setup (forwarded) cannot reach it, but n1 plays on
    // for its own connections: ann's chat line is an event n2's connections miss.
    c.bus.cut("n1");
    const std::size_t bob_before = bob->got().size(), cat_before = cat->got().size();
    ann->say({{"type", "chat"}, {"game", code}, {"text", "still here"}});
    auto line = ann->wait([](const json& m) {
        return m.value("type", "") == "event" && m.value("kind", "") == "chat";
    });
    REQUIRE(line);
    const std::int64_t v = (*line)["version"];
    std::this_thread::sleep_for(300ms);
    CHECK(!bob->wait(event_at(v), 0ms, bob_before));

    // When n1's bus comes back, the watchers on n2 get the missed event without asking, in
    // order after what they had.
    c.bus.mend("n1");
    CHECK(bob->wait(event_at(v), 10s, bob_before));
    CHECK(cat->wait(event_at(v), 10s, cat_before));
    for (auto* who : {bob.get(), cat.get()}) {
        auto versions = event_versions(*who);
        for (std::size_t i = 1; i < versions.size(); ++i)
            CHECK_MESSAGE(versions[i] == versions[i - 1] + 1, (who == bob.get() ? "bob " : "cat "),
                          json(who->got()).dump());
    }
}

TEST_CASE("cluster in process: one message per node for an event its watchers share") {
    TwoNodes c;
    if (c.skipped()) return;
    auto ann = c.n1->connect("ann");
    auto bob = c.n2->connect("bob");
    const std::string code = c.seated_game(*ann, *bob);
    std::vector<std::shared_ptr<Conn>> fans;
    for (int i = 0; i < 5; ++i) {
        fans.push_back(c.n2->connect("fan" + std::to_string(i)));
        fans.back()->say({{"type", "watch"}, {"code", code}});
        REQUIRE(fans.back()->wait(of_type("snapshot")));
    }
    std::this_thread::sleep_for(300ms);  // the spectator counts settle
    const int before = c.bus.carried("n1", cluster_detail::channel_of("n2"));
    ann->say({{"type", "chat"}, {"game", code}, {"text", "hello, stands"}});
    for (auto& f : fans)
        CHECK(f->wait([](const json& m) {
            return m.value("type", "") == "event" && m.value("kind", "") == "chat";
        }));
    CHECK(bob->wait([](const json& m) {
        return m.value("type", "") == "event" && m.value("kind", "") == "chat";
    }));
    // Six connections on n2 watch the game: its line crossed the bus once.
    CHECK(c.bus.carried("n1", cluster_detail::channel_of("n2")) - before == 1);
}

}  // namespace tf::server::testing

namespace tf::server::testing {

TEST_CASE("cluster in process: the lobby and the quick-match pool span the nodes") {
    TwoNodes c;
    if (c.skipped()) return;
    auto ann = c.n1->connect("ann");
    auto cat = c.n2->connect("cat");
    cat->say({{"type", "list_games"}});
    REQUIRE(cat->wait(of_type("lobby")));

    // A public game created on n1 is listed on n2, and leaves the list once cancelled.
    ann->say({{"type", "create_game"},
              {"time_control", nullptr},
              {"color", "silver"},
              {"public", true},
              {"ref", "open"}});
    auto created = ann->wait(of_type("game_created", "open"));
    REQUIRE(created);
    const std::string code = (*created)["code"];
    auto listed = [&](bool shown) {
        return [&, shown](const json& m) {
            if (m.value("type", "") != "lobby") return false;
            bool found = false;
            for (const auto& g : m["games"]) found = found || g.value("code", "") == code;
            return found == shown;
        };
    };
    std::size_t from = cat->got().size();
    CHECK(cat->wait(listed(true), 10s));
    from = cat->got().size();
    ann->say({{"type", "cancel_game"}, {"code", code}});
    CHECK(cat->wait(listed(false), 10s, from));

    // Two seekers on two nodes are paired into one game, on opposite sides.
    auto bob = c.n2->connect("bob");
    ann->say({{"type", "quick_match"}, {"time_control", nullptr}});
    REQUIRE(ann->wait(of_type("quick_match_waiting")));
    bob->say({{"type", "quick_match"}, {"time_control", nullptr}});
    auto m1 = ann->wait(of_type("matched"));
    auto m2 = bob->wait(of_type("matched"));
    REQUIRE(m1);
    REQUIRE(m2);
    CHECK((*m1)["code"] == (*m2)["code"]);
    CHECK((*m1)["side"] != (*m2)["side"]);
}

}  // namespace tf::server::testing
