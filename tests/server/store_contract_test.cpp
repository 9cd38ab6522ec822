// The store contract: what rooms, identities, the directory and the history API rely on, run
// against every implementation of server/store/store.h — the SQLite store, the in-memory one, the
// PostgreSQL one (when TF_TEST_DATABASE_URL names a cluster: tests/postgres.cmake), and the
// fault-injecting decorator over each of them (with no fault, it must be a perfect stand-in;
// with faults, it must fail as a store does: all or nothing, and say so).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "server/accounts/ratings.h"
#include "server/store/faulty_store.h"
#include "server/store/memory_store.h"
#include "server/store/pg_store.h"
#include "server/store/record_codec.h"
#include "server/store/sqlite_store.h"
#include "tests/support/pg_test_db.h"

namespace tf::server {
namespace {

namespace fs = std::filesystem;

// A rated blitz game p1 (silver) won against p2, ended at `at_ms`, rated by the server's
// arithmetic.
RateGame rated_game(std::int64_t at_ms) {
    RateGame g{"blitz", {"p1", "p2"}, 1.0, at_ms};
    g.rate = rate_game;
    return g;
}

// One store under test, with a folder or a PostgreSQL database of its own when it needs one.
struct Subject {
    std::string name;
    std::string dir;
    std::string pg_base, pg_db;  // the cluster, and the database made for this subject
    std::unique_ptr<Store> store;
    FaultyStore* faulty = nullptr;  // set when the store is the decorator
    ~Subject() {
        store.reset();
        if (!dir.empty()) fs::remove_all(dir);
        if (pg_db.empty()) return;
        try {
            test::pg_drop_database(pg_base, pg_db);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "store contract: %s\n", e.what());
        }
    }
};

std::string temp_dir() {
    char t[] = "/tmp/tf-contract-XXXXXX";
    REQUIRE(mkdtemp(t));
    return t;
}

// A fresh database of the test cluster for `s`, opened as a PostgreSQL store.
std::unique_ptr<Store> open_fresh_pg(Subject& s) {
    static int counter = 0;
    s.pg_base = test::pg_test_url();
    std::string db = "tf_contract_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    test::pg_create_database(s.pg_base, db);
    s.pg_db = db;
    return open_pg_store(PgOptions{test::pg_with_dbname(s.pg_base, db)});
}

using Maker = std::function<void(Subject&)>;
std::vector<std::pair<std::string, Maker>> makers() {
    std::vector<std::pair<std::string, Maker>> all = {
        {"sqlite",
         [](Subject& s) {
             s.dir = temp_dir();
             s.store = open_sqlite_store(s.dir, SyncLevel::Normal);
         }},
        {"memory", [](Subject& s) { s.store = std::make_unique<MemoryStore>(); }},
        {"faulty(memory)",
         [](Subject& s) {
             auto f = std::make_unique<FaultyStore>(std::make_unique<MemoryStore>());
             s.faulty = f.get();
             s.store = std::move(f);
         }},
        {"faulty(sqlite)",
         [](Subject& s) {
             s.dir = temp_dir();
             auto f = std::make_unique<FaultyStore>(open_sqlite_store(s.dir, SyncLevel::Normal));
             s.faulty = f.get();
             s.store = std::move(f);
         }},
    };
    if (test::pg_test_url().empty()) return all;  // no cluster to run these on
    all.emplace_back("postgres", [](Subject& s) { s.store = open_fresh_pg(s); });
    all.emplace_back("faulty(postgres)", [](Subject& s) {
        auto f = std::make_unique<FaultyStore>(open_fresh_pg(s));
        s.faulty = f.get();
        s.store = std::move(f);
    });
    return all;
}

// Commits and waits for the outcome (done runs on the store's thread).
std::optional<std::string> commit(Store& st, GameWrite w) {
    std::promise<std::optional<std::string>> p;
    auto f = p.get_future();
    st.commit(std::move(w), [&](std::optional<std::string> err) { p.set_value(err); });
    return f.get();
}

// Waits until everything queued is durable (players are fire and forget).
void settle(Store& st) {
    for (int i = 0; i < 500 && st.pending() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(commit(st, GameWrite{}) == std::nullopt);  // an empty write orders after the rest
}

StoredGame game_row(const std::string& code, const std::string& silver, std::int64_t created) {
    StoredGame g;
    g.code = code;
    g.variant = R"({"burnt":3,"elephants":5,"quiet":40,"size":9})";
    g.time_control = "null";
    g.creator_side = "silver";
    g.seat_id[0] = silver;
    g.seat_name[0] = "ann";
    g.status = "open";
    g.result = "null";
    g.created_ms = created;
    return g;
}

JournalRow row(std::int64_t v, const std::string& kind = "chat") {
    return JournalRow{v, kind, R"({"v":)" + std::to_string(v) + "}", 1000 + v, 1};
}

// An asynchronous read, run to completion on a local io_context: the answer comes there, and
// never inside the call.
template <class T, class Start>
Read<T> read(Start start) {
    boost::asio::io_context ioc;
    auto work = boost::asio::make_work_guard(ioc);  // run_for waits for the posted answer
    std::optional<Read<T>> out;
    bool inside = true;
    start(ioc.get_executor(), [&](Read<T> r) {
        CHECK(!inside);
        out = std::move(r);
    });
    inside = false;
    for (int i = 0; i < 2000 && !out; ++i) {
        ioc.restart();
        ioc.run_for(std::chrono::milliseconds(2));
    }
    REQUIRE(out);
    return *out;
}

}  // namespace

TEST_CASE("store contract") {
    for (auto& [name, make] : makers()) {
        SUBCASE(name.c_str()) {
            Subject s;
            make(s);
            Store& st = *s.store;
            CHECK(st.healthy());

            // Players: queued, then found by selector; an unknown one is "none", not an error.
            st.add_player(StoredPlayer{"p1", "ann", "sel1", "sec1"});
            settle(st);
            auto p = read<std::optional<StoredPlayer>>(
                [&](auto ex, auto then) { st.read_player("sel1", ex, then); });
            REQUIRE(p.ok());
            REQUIRE(*p.value);
            CHECK((*p.value)->id == "p1");
            CHECK((*p.value)->secret_hash == "sec1");
            auto none = read<std::optional<StoredPlayer>>(
                [&](auto ex, auto then) { st.read_player("nope", ex, then); });
            REQUIRE(none.ok());
            CHECK(!*none.value);

            // A game: created with its first rows, then updated; the journal keeps its order
            // and format.
            CHECK(!commit(st,
                          GameWrite{"abc234", game_row("abc234", "p1", 1), {row(1, "join")}, {}}));
            StoredGame g = game_row("abc234", "p1", 1);
            g.status = "playing";
            g.seat_id[1] = "p2";
            g.seat_name[1] = "bob";
            g.version = 3;
            g.turns = 1;
            CHECK(!commit(st, GameWrite{"abc234", std::nullopt, {row(2), row(3, "turn")}, g}));
            auto rows = read<std::optional<GameRows>>(
                [&](auto ex, auto then) { st.read_game("abc234", ex, then); });
            REQUIRE(rows.ok());
            REQUIRE(*rows.value);
            CHECK((*rows.value)->row.status == "playing");
            CHECK((*rows.value)->row.seat_name[1] == "bob");
            CHECK((*rows.value)->row.version == 3);
            REQUIRE((*rows.value)->journal.size() == 3);
            CHECK((*rows.value)->journal[2].kind == "turn");
            CHECK((*rows.value)->journal[2].event == row(3).event);
            CHECK((*rows.value)->journal[2].format == 1);
            auto taken =
                read<bool>([&](auto ex, auto then) { st.read_code_taken("abc234", ex, then); });
            REQUIRE(taken.ok());
            CHECK(*taken.value);
            taken = read<bool>([&](auto ex, auto then) { st.read_code_taken("zzz999", ex, then); });
            CHECK(!*taken.value);

            // An operation applies whole or not at all: a duplicate version fails it, and
            // leaves the game as it was.
            g.version = 4;
            CHECK(commit(st, GameWrite{"abc234", std::nullopt, {row(4), row(3)}, g}));
            CHECK(st.journal("abc234").size() == 3);
            CHECK(st.game("abc234")->version == 3);
            CHECK(st.healthy());  // the request's error, not the store's
            // Neither can a game be created twice, nor an unknown one be written to.
            CHECK(commit(st, GameWrite{"abc234", game_row("abc234", "p1", 1), {}, {}}));
            CHECK(commit(st,
                         GameWrite{"nope42", std::nullopt, {row(1)}, game_row("nope42", "p1", 1)}));

            // Listing: newest first, by status and player, in pages with a cursor.
            for (int i = 0; i < 5; ++i) {
                StoredGame o = game_row("g" + std::to_string(i), i % 2 ? "p1" : "p3", 10 + i);
                if (i == 4) o.status = "over";
                CHECK(!commit(st, GameWrite{o.code, o, {}, {}}));
            }
            auto page = read<GamePage>([&](auto ex, auto then) {
                GameQuery q;
                q.limit = 4;
                st.read_page(q, ex, then);
            });
            REQUIRE(page.ok());
            REQUIRE(page.value->games.size() == 4);
            CHECK(page.value->games[0].second.code == "g4");
            REQUIRE(page.value->next);
            auto rest = read<GamePage>([&](auto ex, auto then) {
                GameQuery q;
                q.limit = 4;
                q.before = *page.value->next;
                st.read_page(q, ex, then);
            });
            REQUIRE(rest.value->games.size() == 2);
            CHECK(rest.value->games[1].second.code == "abc234");
            CHECK(!rest.value->next);
            GameQuery mine;
            mine.player_id = "p1";
            CHECK(st.list(mine).games.size() == 3);  // abc234, g1, g3
            GameQuery finished;
            finished.status = "finished";
            CHECK(st.list(finished).games.size() == 1);
            GameQuery live;
            live.status = "live";
            CHECK(st.list(live).games.size() == 1);

            // Unfinished games (recovery) and quarantine.
            CHECK(st.unfinished().size() == 5);  // abc234 playing, g0..g3 open
            st.quarantine("g0", "test");
            CHECK(st.game("g0")->status == "quarantined");
            CHECK(st.unfinished().size() == 4);
            CHECK(st.pending() == 0);

            // Turns change only a game's progress: every read says how far it got, while it is
            // played and once it is over.
            {
                StoredGame p = game_row("prg234", "p1", 1);
                p.status = "playing";
                p.seat_id[1] = "p2";
                p.seat_name[1] = "bob";
                p.version = 2;
                CHECK(!commit(st, GameWrite{"prg234", p, {row(1, "join"), row(2)}, {}}));
                for (int v = 3; v <= 5; ++v) {
                    p.version = v;
                    p.turns = v - 2;
                    CHECK(!commit(st, GameWrite{"prg234", std::nullopt, {row(v, "turn")}, p}));
                }
                CHECK(st.game("prg234")->version == 5);
                CHECK(st.game("prg234")->turns == 3);
                auto live = st.unfinished();
                auto it = std::find_if(live.begin(), live.end(),
                                       [](const StoredGame& x) { return x.code == "prg234"; });
                REQUIRE(it != live.end());
                CHECK(it->version == 5);
                CHECK(it->turns == 3);
                GameQuery q;
                q.status = "live";
                auto listed = st.list(q).games;
                REQUIRE(!listed.empty());
                CHECK(listed.front().second.code == "prg234");
                CHECK(listed.front().second.version == 5);
                CHECK(listed.front().second.turns == 3);
                p.status = "over";
                p.version = 6;
                p.finished_ms = 5'000;
                CHECK(!commit(st, GameWrite{"prg234", std::nullopt, {row(6, "game_over")}, p}));
                CHECK(st.game("prg234")->status == "over");
                CHECK(st.game("prg234")->version == 6);
                CHECK(st.game("prg234")->turns == 3);
                CHECK(st.unfinished().size() == 4);
            }

            if (s.faulty) {
                // A failed write applies nothing and makes the store unhealthy until the
                // faults end; a write reported failed after reaching the store is there.
                Faults f;
                f.write = Faults::Write::Fail;
                s.faulty->set(f);
                CHECK(!st.healthy());
                g.version = 4;
                CHECK(commit(st, GameWrite{"abc234", std::nullopt, {row(4)}, g}));
                CHECK(s.faulty->inner().journal("abc234").size() == 3);
                f.write = Faults::Write::Fsync;
                s.faulty->set(f);
                CHECK(commit(st, GameWrite{"abc234", std::nullopt, {row(4)}, g}));
                CHECK(s.faulty->inner().journal("abc234").size() == 4);
                // Failing reads are errors, never "not found".
                f = Faults{};
                f.reads_fail = true;
                s.faulty->set(f);
                auto r = read<std::optional<StoredPlayer>>(
                    [&](auto ex, auto then) { st.read_player("sel1", ex, then); });
                CHECK(!r.ok());
                CHECK(r.fault);
                CHECK(!r.error.empty());
                s.faulty->set(Faults{});
                CHECK(st.healthy());
            }
        }
    }
}

TEST_CASE("store contract: accounts, tokens and ratings") {
    auto account = [](Store& st, AccountWrite w) {
        std::promise<AccountResult> p;
        auto f = p.get_future();
        st.write_account(std::move(w), [&](AccountResult r) { p.set_value(std::move(r)); });
        return f.get();
    };
    auto make = [](AccountWrite::Kind k, std::string id) {
        AccountWrite w;
        w.kind = k;
        w.player_id = std::move(id);
        return w;
    };
    for (auto& [name, maker] : makers()) {
        SUBCASE(name.c_str()) {
            Subject s;
            maker(s);
            Store& st = *s.store;
            st.add_player(StoredPlayer{"p1", "guest-1", "sel1", "hash1"});
            st.add_player(StoredPlayer{"p2", "guest-2", "sel2", "hash2"});
            settle(st);

            // Registering: the guest becomes the account, its token keeps working.
            auto reg = make(AccountWrite::Kind::Register, "p1");
            reg.username = "Ann";
            reg.pw_hash = "pw1";
            auto r = account(st, reg);
            CHECK(r.ok);
            auto found = st.account_by_name("ann");  // any letter case
            REQUIRE(found);
            CHECK(found->username == "Ann");
            CHECK(found->player_id == "p1");
            CHECK(found->pw_hash == "pw1");
            auto p1 = st.player_by_selector("sel1");
            REQUIRE(p1);
            CHECK(p1->username == "Ann");
            CHECK(p1->secret_hash == "hash1");
            CHECK(!st.player_by_selector("sel2")->username.size());

            // The name in another letter case is taken; a player registers once.
            auto again = make(AccountWrite::Kind::Register, "p2");
            again.username = "ANN";
            again.pw_hash = "x";
            r = account(st, again);
            CHECK(!r.ok);
            CHECK(r.conflict);
            CHECK(!r.fault);
            again.username = "bob";
            CHECK(account(st, again).ok);
            CHECK(st.account_by_name("BOB")->player_id == "p2");

            // Tokens: a login adds one; logging out revokes one, or all.
            auto login = make(AccountWrite::Kind::AddToken, "p1");
            login.selector = "sel3";
            login.secret_hash = "hash3";
            CHECK(account(st, login).ok);
            CHECK(st.player_by_selector("sel3")->id == "p1");
            auto out = make(AccountWrite::Kind::RevokeToken, "p1");
            out.selector = "sel3";
            CHECK(account(st, out).ok);
            CHECK(!st.player_by_selector("sel3"));
            CHECK(st.player_by_selector("sel1"));
            login.selector = "sel4";
            CHECK(account(st, login).ok);
            auto pw = make(AccountWrite::Kind::SetPassword, "p1");
            pw.pw_hash = "pw2";
            pw.selector = "sel1";  // kept
            CHECK(account(st, pw).ok);
            CHECK(st.account_by_name("Ann")->pw_hash == "pw2");
            CHECK(!st.player_by_selector("sel4"));
            CHECK(st.player_by_selector("sel1"));

            // A rated game's end rates both players once, whatever is written again.
            StoredGame g = game_row("rat234", "p1", 5);
            g.rated = true;
            g.seat_id[1] = "p2";
            g.seat_name[1] = "bob";
            CHECK(!commit(st, GameWrite{"rat234", g, {row(1, "join")}, {}}));
            g.status = "over";
            g.result = result_text(proto::Result{
                true, proto::ResultReason::Resign, {3, 1}, proto::Winner::Silver, {}});
            g.turns = 12;
            g.version = 2;
            g.finished_ms = 90'000;
            RateGame rate = rated_game(90'000);
            GameWrite end{"rat234", std::nullopt, {row(2, "game_over")}, g, rate};
            CHECK(!commit(st, end));
            CHECK(rate.outcome->before[0].rating == doctest::Approx(1500));
            CHECK(rate.outcome->after[0].rating > 1500);
            CHECK(rate.outcome->after[1].rating < 1500);
            auto ann = st.ratings_of("p1");
            REQUIRE(ann.size() == 1);
            CHECK(ann[0].category == "blitz");
            CHECK(ann[0].games == 1);
            CHECK(ann[0].rating == doctest::Approx(rate.outcome->after[0].rating));
            CHECK(ann[0].last_ms == 90'000);

            RateGame twice = rated_game(91'000);
            CHECK(!commit(st, GameWrite{"rat234", std::nullopt, {}, g, twice}));
            CHECK(st.ratings_of("p1")[0].games == 1);
            CHECK(st.ratings_of("p1")[0].rating == doctest::Approx(ann[0].rating));
            CHECK(twice.outcome->after[0].rating == doctest::Approx(ann[0].rating));

            // One game leaves a provisional rating: not on the leaderboard yet.
            CHECK(st.leaderboard("blitz", 10, 0).empty());
            auto prof = st.profile("ANN", 10, "");
            REQUIRE(prof);
            CHECK(prof->account.username == "Ann");
            REQUIRE(prof->ratings.size() == 1);
            REQUIRE(prof->history["blitz"].size() == 1);
            CHECK(prof->history["blitz"][0].code == "rat234");
            CHECK(prof->as[0].wins == 1);
            CHECK(prof->as[1].losses == 0);
            REQUIRE(!prof->recent.empty());
            CHECK(prof->recent[0].code == "rat234");
            CHECK(prof->recent[0].rated);
            CHECK(!st.profile("nobody", 10, ""));

            // A private game (rated too): in the lists and the player page only for a viewer
            // seated in it; its code in the rating history likewise.
            StoredGame priv = game_row("prv234", "p1", 6);
            priv.is_public = false;
            priv.rated = true;
            priv.seat_id[1] = "p2";
            priv.seat_name[1] = "bob";
            priv.status = "playing";
            CHECK(!commit(st, GameWrite{"prv234", priv, {row(1, "join")}, {}}));
            priv.status = "over";
            priv.result = g.result;
            priv.version = 2;
            priv.finished_ms = 95'000;
            CHECK(!commit(
                st, GameWrite{
                        "prv234", std::nullopt, {row(2, "game_over")}, priv, rated_game(95'000)}));
            auto codes = [&](std::optional<std::string> viewer, const std::string& player) {
                GameQuery q;
                q.player_id = player;
                q.viewer = std::move(viewer);
                std::vector<std::string> out;
                for (auto& [cursor, game] : st.list(q).games) out.push_back(game.code);
                return out;
            };
            using V = std::vector<std::string>;
            CHECK(codes(std::nullopt, "p1") == V{"prv234", "rat234"});  // the server's own reads
            CHECK(codes("", "p1") == V{"rat234"});                      // anyone
            CHECK(codes("p3", "") == V{"rat234"});                      // another player
            CHECK(codes("p2", "") == V{"prv234", "rat234"});            // a player of it
            auto seen_by = [&](const std::string& viewer) {
                auto p = st.profile("ann", 10, viewer);
                REQUIRE(p);
                V recent, history;
                for (auto& game : p->recent) recent.push_back(game.code);
                for (auto& pt : p->history["blitz"]) history.push_back(pt.code);
                return std::pair{recent, history};
            };
            CHECK(seen_by("") == std::pair{V{"rat234"}, V{"rat234", ""}});
            CHECK(seen_by("p1") == std::pair{V{"prv234", "rat234"}, V{"rat234", "prv234"}});
        }
    }
}

// The open-game limits across nodes (server/lobby/player_index.h): the store counts the open games
// of a player and of a creator's address that other nodes own. Only a store nodes share keeps the
// address (PostgreSQL); the others know no other node and count nothing.
TEST_CASE("store contract: open games of other nodes") {
    for (auto& [name, maker] : makers()) {
        SUBCASE(name.c_str()) {
            Subject s;
            maker(s);
            Store& st = *s.store;
            st.add_player(StoredPlayer{"p1", "ann", "s1", "h1", ""});
            st.add_player(StoredPlayer{"p2", "bob", "s2", "h2", ""});
            settle(st);
            const bool shared = name.find("postgres") != std::string::npos;
            for (int i = 0; i < 3; ++i) {
                StoredGame g = game_row("opn23" + std::to_string(i + 4), i < 2 ? "p1" : "p2", i);
                g.creator_addr = "192.0.2.1";
                GameWrite w{g.code, g, {}, {}};
                if (shared) {
                    w.owner = "nodeA";
                    w.epoch = 1;
                }
                CHECK(!commit(st, w));
            }
            auto counts = [&](const std::string& node) {
                auto c = st.open_counts("p1", "192.0.2.1", node);
                return std::pair{c.player, c.address};
            };
            if (!shared) {
                CHECK(counts("nodeB") == std::pair{0, 0});
                continue;
            }
            CHECK(counts("nodeB") == std::pair{2, 3});
            CHECK(counts("nodeA") == std::pair{0, 0});  // the node's own: it counts them itself
            CHECK(st.game("opn234")->creator_addr == "192.0.2.1");
            // Joined: no longer open, and the address is gone from the row.
            StoredGame joined = *st.game("opn234");
            joined.seat_id[1] = "p2";
            joined.seat_name[1] = "bob";
            joined.status = "playing";
            joined.version = 1;
            GameWrite w{"opn234", std::nullopt, {row(1, "join")}, joined};
            w.owner = "nodeA";
            w.epoch = 1;
            CHECK(!commit(st, w));
            CHECK(counts("nodeB") == std::pair{1, 2});
            CHECK(st.game("opn234")->creator_addr.empty());
        }
    }
}

// Store's waited-for reads (store.cpp) on a store's own thread would wait for that thread: they
// are refused there (a `done` runs on it), and answered anywhere else.
TEST_CASE("store contract: a waited-for read is refused on the store's own thread") {
    for (auto& [name, maker] : makers()) {
        SUBCASE(name.c_str()) {
            Subject s;
            maker(s);
            Store& st = *s.store;
            std::promise<std::string> p;
            auto f = p.get_future();
            st.commit(GameWrite{}, [&](std::optional<std::string>) {
                try {
                    p.set_value(st.game("nothere") ? "a game" : "none");
                } catch (const StoreError& e) {
                    p.set_value(e.what());
                }
            });
            // The in-memory store runs `done` on the caller's thread: it has none of its own.
            const bool own_thread = name.find("memory") == std::string::npos;
            CHECK(f.get() == (own_thread ? "a blocking read on a store's own thread" : "none"));
            CHECK(!st.game("nothere"));
        }
    }
}

}  // namespace tf::server
