// The PostgreSQL store (server/store/pg_store.h). Everything runs on the store's own thread, an
// io_context with two connections (server/store/pg_conn.h):
//  - the writer takes every operation queued since its last group commit (at most kMaxGroup)
//    and sends them as one pipeline segment, which PostgreSQL runs as one implicit transaction
//    committed at the Sync: one round trip and one WAL flush for the group. A statement that
//    fails for the request's own reason (a broken key, a tf_check) rolls the group back: that
//    operation fails alone and the others go again at once. Anything else (the database down,
//    disk full, a timeout) fails the group as the store's fault: the store turns unhealthy,
//    reconnects with backoff (100 ms doubling to 2 s) and probes until a write commits.
//  - the reader answers lookups and the history API, one pipeline segment per read.
// A rated game's end reads both ratings first (one more round trip, outside the group), then
// writes the update guarded by the game count it read, so that a rating changed meanwhile (by
// another node) fails the check and the operation is computed again.
#include "server/store/pg_store.h"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "server/base/io_thread.h"
#include "server/base/time.h"
#include "server/store/pg_conn.h"
#include "server/store/pg_queries.h"
#include "server/store/pg_schema.h"
#include "server/store/writer_core.h"

namespace tf::server {

namespace {

namespace asio = boost::asio;
using SteadyClock = std::chrono::steady_clock;
using namespace pg;  // the connections (pg_conn.h), statements and reads (pg_queries.h)

constexpr std::size_t kMaxGroup = 512;
constexpr std::chrono::milliseconds kFirstBackoff{100}, kMaxBackoff{2000};
constexpr int kMaxRateAttempts = 5;

class PgStore : public QueuedWrites<Store> {
  public:
    explicit PgStore(const PgOptions& o)
        : QueuedWrites(kFirstBackoff, kMaxBackoff, "reconnecting with backoff"),
          url_(o.url),
          wr_(io_, o.url, statements()),
          rd_(io_, o.url, statements()),
          retry_(io_) {
        // Connected before the server listens: a database that is there at the check but not
        // now is reported here, like one that never was.
        std::promise<std::string> p;
        auto f = p.get_future();
        asio::post(io_, [&] {
            wr_.connect([this, &p](std::string err) {
                if (!err.empty()) return p.set_value(err);
                rd_.connect([&p](std::string e2) { p.set_value(e2); });
            });
        });
        thread_ = std::thread([this] {
            mark_store_thread();
            io_.run();
        });
        if (auto err = f.get(); !err.empty()) {
            stop();
            throw StoreError("cannot connect to the database: " + err);
        }
    }

    ~PgStore() override { stop(); }

    // Reads: each is one Spec, answered from the reader connection.
    void read_player(std::string s, Executor ex, Then<std::optional<StoredPlayer>> t) override {
        async(player_spec(s), ex, std::move(t));
    }
    void read_code_taken(std::string c, Executor ex, Then<bool> t) override {
        async(code_spec(c), ex, std::move(t));
    }
    void read_game(std::string c, Executor ex, Then<std::optional<GameRows>> t) override {
        async(game_rows_spec(c), ex, std::move(t));
    }
    void read_page(GameQuery q, Executor ex, Then<GamePage> t) override {
        async(page_spec(q), ex, std::move(t));
    }
    void read_account(std::string u, Executor ex, Then<std::optional<StoredAccount>> t) override {
        async(account_spec(u), ex, std::move(t));
    }
    void read_ratings(std::string p, Executor ex, Then<std::vector<StoredRating>> t) override {
        async(ratings_spec(p), ex, std::move(t));
    }
    void read_leaderboard(std::string c, int limit, std::int64_t since, bool bots, Executor ex,
                          Then<std::vector<LeaderRow>> t) override {
        async(leaderboard_spec(c, limit, since, bots), ex, std::move(t));
    }
    void read_profile(std::string u, int recent, std::string viewer, Executor ex,
                      Then<std::optional<PlayerProfile>> t) override {
        async(profile_spec(u, recent, viewer), ex, std::move(t));
    }
    void read_unfinished(Executor ex, Then<std::vector<StoredGame>> t) override {
        async(Spec<std::vector<StoredGame>>{{prepared("unfinished", {})},
                                            [](const Results& r) { return games_of(r[0]); }},
              ex, std::move(t));
    }
    void read_open_counts(std::string p, std::string a, std::string n, Executor ex,
                          Then<OpenGameCounts> t) override {
        async(open_counts_spec(p, a, n), ex, std::move(t));
    }
    // On the reader connection: a game that does not replay is marked at start, before any
    // write of this node.
    void write_quarantine(std::string code, std::string why, Done done) override {
        run_read<bool>(
            Spec<bool>{{prepared("quarantine", {code, why})}, [](const Results&) { return true; }},
            [done = std::move(done)](Read<bool> r) {
                done(r.ok() ? std::nullopt : std::optional<std::string>(r.error));
            });
    }

  private:
    using Op = WriteOp;
    // Which operation a statement of a group belongs to (-1: a player kept from a failed
    // group), and whether it writes a rating.
    struct Tag {
        int op;
        bool rating;
    };
    struct ReadJob {
        std::vector<Query> queries;
        std::function<void(pg::Answer)> done;
        bool retried = false;
    };

    void stop() {
        if (!thread_.joinable()) return;
        // Everything queued is written first (the writer drains), then the thread ends.
        std::promise<void> p;
        auto f = p.get_future();
        asio::post(io_, [this, &p] {
            stopping_ = true;
            stopped_ = &p;
            maybe_stopped();
        });
        f.wait();
        io_.stop();
        thread_.join();
    }
    void maybe_stopped() {
        if (!stopping_ || !stopped_) return;
        if (writing_ || !q_.empty() || reading_ || !rq_.empty()) return;
        retry_.cancel();
        wr_.close();
        rd_.close();
        std::exchange(stopped_, nullptr)->set_value();
    }

    // ---- reads ----

    template <class T>
    void run_read(Spec<T> spec, std::function<void(Read<T>)> then) {
        auto job = [this, spec = std::move(spec), then = std::move(then)]() mutable {
            rq_.push_back({std::move(spec.queries),
                           [parse = std::move(spec.parse), then = std::move(then)](pg::Answer a) {
                               Read<T> r;
                               if (!a.error.empty()) {
                                   r.error = "the database: " + a.error;
                                   r.fault = true;
                               } else if (auto f = a.failed()) {
                                   r.error = "postgresql: " + a.results[*f].error();
                                   r.fault = !pg::request_error(a.results[*f].sqlstate());
                               } else if (!a.commit_error.empty()) {
                                   r.error = "postgresql: " + a.commit_error;
                                   r.fault = !pg::request_error(a.commit_sqlstate);
                               } else {
                                   try {
                                       r.value.emplace(parse(a.results));
                                   } catch (const std::exception& e) {
                                       r.error = std::string("reading the answer: ") + e.what();
                                       r.fault = true;
                                   }
                               }
                               then(std::move(r));
                           }});
            read_next();
        };
        asio::post(io_, std::move(job));
    }
    template <class T>
    void async(Spec<T> spec, Executor ex, Then<T> then) {
        run_read<T>(std::move(spec), [ex, then = std::move(then)](Read<T> r) mutable {
            asio::post(
                ex, [then = std::move(then), r = std::move(r)]() mutable { then(std::move(r)); });
        });
    }
    void read_next() {
        if (reading_ || rq_.empty()) return maybe_stopped();
        if (!rd_.ready()) {
            if (SteadyClock::now() < read_retry_at_) {  // it failed a moment ago: fail fast
                auto jobs = std::move(rq_);
                rq_.clear();
                for (auto& j : jobs) j.done(pg::Answer{read_error_, {}, {}, {}});
                return maybe_stopped();
            }
            reading_ = true;
            rd_.connect([this](std::string err) {
                reading_ = false;
                if (!err.empty()) {
                    read_error_ = err;
                    read_retry_at_ = SteadyClock::now() + std::chrono::milliseconds(500);
                }
                read_next();
            });
            return;
        }
        reading_ = true;
        auto job = std::make_shared<ReadJob>(std::move(rq_.front()));
        rq_.pop_front();
        rd_.run(job->queries, [this, job](pg::Answer a) {
            reading_ = false;
            // A read lost with its connection is tried once more on a new one (reads change
            // nothing; a database that restarted is usually back by then).
            if (!a.error.empty() && !job->retried) {
                job->retried = true;
                rq_.push_front(std::move(*job));
                return read_next();
            }
            job->done(std::move(a));
            read_next();
        });
    }

    // ---- writes ----

    void enqueue(Op op) override {
        core_.queued();
        asio::post(io_, [this, op = std::move(op)]() mutable {
            q_.push_back(std::move(op));
            write_next();
        });
    }

    // The writer: one group at a time.
    void write_next() {
        if (writing_) return;
        if (q_.empty()) return maybe_stopped();
        if (!wr_.ready()) {
            if (!core_.healthy() && SteadyClock::now() < retry_at_) {  // in backoff: fail fast
                auto ops = std::move(q_);
                q_.clear();
                for (auto& op : ops) report(op, core_.last_error(), true);
                return maybe_stopped();
            }
            writing_ = true;
            wr_.connect([this](std::string err) {
                writing_ = false;
                if (!err.empty()) {
                    auto ops = std::move(q_);
                    q_.clear();
                    const std::string why = "the database is unreachable: " + err;
                    failed(ops.empty() ? "connecting" : ops.front().what(), why, int(ops.size()));
                    for (auto& op : ops) report(op, why, true);
                    return maybe_stopped();
                }
                write_next();
            });
            return;
        }
        std::vector<Op> group;
        while (!q_.empty() && group.size() < kMaxGroup) {
            group.push_back(std::move(q_.front()));
            q_.pop_front();
        }
        writing_ = true;
        bool rates = false;
        for (const auto& op : group) rates = rates || op.write.rate.has_value();
        if (rates)
            read_ratings_then_write(std::move(group));
        else
            write_group(std::move(group));
    }

    // A rated game's end: the history (rated already?) and both players' current ratings.
    void read_ratings_then_write(std::vector<Op> group) {
        std::vector<Query> qs;
        for (const auto& op : group) {
            if (!op.write.rate) continue;
            const RateGame& g = *op.write.rate;
            qs.push_back(prepared("rating_history", {op.write.code}));
            for (int i = 0; i < 2; ++i)
                qs.push_back(prepared("rating_of", {g.player[i], g.category}));
        }
        auto shared = std::make_shared<std::vector<Op>>(std::move(group));
        wr_.run(std::move(qs), [this, shared](pg::Answer a) {
            auto& group = *shared;
            std::string why = a.error;
            if (why.empty())
                if (auto f = a.failed()) why = a.results[*f].error();
            if (!why.empty()) return group_failed(std::move(group), "reading ratings: " + why);
            std::size_t k = 0;
            for (auto& op : group) {
                if (!op.write.rate) continue;
                const RateGame& g = *op.write.rate;
                const pg::Result& h = a.results[k];
                op.already_rated = h.rows() > 0;
                for (int row = 0; row < h.rows(); ++row) {
                    const int i = h.text(row, 0) == g.player[0] ? 0 : 1;
                    const std::string category = h.text(row, 1);
                    g.outcome->before[i] = {
                        category,       h.real(row, 2),         h.real(row, 3),
                        h.real(row, 4), int(h.integer(row, 5)), h.integer(row, 6)};
                    g.outcome->after[i] = {category,
                                           h.real(row, 7),
                                           h.real(row, 8),
                                           h.real(row, 9),
                                           int(h.integer(row, 5)) + 1,
                                           h.integer(row, 10)};
                }
                if (!op.already_rated) {
                    StoredRating before[2];
                    for (int i = 0; i < 2; ++i) {
                        const pg::Result& r = a.results[k + 1 + std::size_t(i)];
                        if (r.rows() > 0) before[i] = rating_of(Row{r, 0}, 0);
                        before[i].category = g.category;
                    }
                    *g.outcome = g.rated(before);
                }
                k += 3;
            }
            write_group(std::move(group));
        });
    }

    void append_player(std::vector<Query>& qs, std::vector<Tag>& tags, const StoredPlayer& p,
                       int op) {
        const Param now = num(epoch_ms());
        qs.push_back(prepared("ins_player", {p.id, p.name, now}));
        qs.push_back(prepared("ins_token_once", {p.selector, p.id, p.secret_hash, now}));
        tags.push_back({op, false});
        tags.push_back({op, false});
    }

    void append(std::vector<Query>& qs, std::vector<Tag>& tags, const Op& op, int index) {
        auto add = [&](Query q, bool rating = false) {
            qs.push_back(std::move(q));
            tags.push_back({index, rating});
        };
        if (op.player) append_player(qs, tags, *op.player, index);
        if (op.account) {
            const AccountWrite& a = *op.account;
            using K = AccountWrite::Kind;
            switch (a.kind) {
                case K::Register:
                    add(prepared("register", {a.player_id, a.username, username_key(a.username),
                                              a.pw_hash, num(epoch_ms())}));
                    break;
                case K::AddToken:
                    add(prepared("ins_token",
                                 {a.selector, a.player_id, a.secret_hash, num(epoch_ms())}));
                    break;
                case K::RevokeTokens:
                    add(prepared("revoke_others", {a.player_id, a.selector}));
                    break;
                case K::RevokeToken:
                    add(prepared("revoke_one", {a.player_id, a.selector}));
                    break;
                case K::SetPassword:
                    add(prepared("set_password", {a.player_id, a.pw_hash}));
                    add(prepared("revoke_others", {a.player_id, a.selector}));
                    break;
            }
        }
        const GameWrite& w = op.write;
        if (w.create) {
            const StoredGame& g = *w.create;
            add(prepared("ins_game", {g.code,
                                      g.variant,
                                      g.time_control,
                                      boolean(g.is_public),
                                      boolean(g.quick_match),
                                      g.creator_side,
                                      g.bot_level ? num(*g.bot_level) : Param{},
                                      opt(g.seat_id[0]),
                                      opt(g.seat_name[0]),
                                      opt(g.seat_id[1]),
                                      opt(g.seat_name[1]),
                                      g.status,
                                      g.result,
                                      num(g.turns),
                                      num(g.version),
                                      num(g.created_ms),
                                      num(g.finished_ms),
                                      boolean(g.rated),
                                      opt(w.owner),
                                      num(w.epoch),
                                      opt(g.creator_addr),
                                      opt(g.invitee_id),
                                      opt(g.invitee_name),
                                      g.to_move,
                                      num(g.move_by)}));
        } else if (w.epoch > 0 && w.update) {
            const StoredGame& g = *w.update;
            add(prepared("upd_game_fenced",
                         {g.code, opt(g.seat_id[0]), opt(g.seat_name[0]), opt(g.seat_id[1]),
                          opt(g.seat_name[1]), g.status, g.result, num(g.turns), num(g.version),
                          num(g.finished_ms), w.owner, num(w.epoch), g.to_move, num(g.move_by)}));
        } else if (w.epoch > 0) {
            add(prepared("fence", {w.code, w.owner, num(w.epoch)}));
        }
        for (const auto& r : w.rows)
            add(prepared("ins_row",
                         {w.code, num(r.version), r.kind, r.event, num(r.at_ms), num(r.format)}));
        if (w.rate && !op.already_rated) {
            const RateGame& g = *w.rate;
            for (int i = 0; i < 2; ++i) {
                const StoredRating& b = g.outcome->before[i];
                const StoredRating& a = g.outcome->after[i];
                add(prepared("put_rating",
                             {g.player[i], g.category, real(a.rating), real(a.deviation),
                              real(a.volatility), num(a.games), num(a.last_ms), num(b.games)}),
                    true);
                add(prepared("put_history",
                             {w.code, g.player[i], g.category, real(b.rating), real(b.deviation),
                              real(b.volatility), num(b.games), num(b.last_ms), real(a.rating),
                              real(a.deviation), real(a.volatility), num(a.last_ms)}),
                    true);
            }
        }
        if (w.update && !(w.epoch > 0 && !w.create)) {  // not written first, fenced
            const StoredGame& g = *w.update;
            add(prepared("upd_game",
                         {g.code, opt(g.seat_id[0]), opt(g.seat_name[0]), opt(g.seat_id[1]),
                          opt(g.seat_name[1]), g.status, g.result, num(g.turns), num(g.version),
                          num(g.finished_ms), g.to_move, num(g.move_by)}));
        }
    }

    void write_group(std::vector<Op> group) {
        std::vector<Query> qs;
        std::vector<Tag> tags;
        for (const auto& p : core_.unsaved_players) append_player(qs, tags, p, -1);
        for (std::size_t i = 0; i < group.size(); ++i) append(qs, tags, group[i], int(i));
        auto shared = std::make_shared<std::vector<Op>>(std::move(group));
        wr_.run(std::move(qs), [this, shared, tags = std::move(tags)](pg::Answer a) {
            auto& group = *shared;
            if (!a.error.empty()) return group_failed(std::move(group), "the database: " + a.error);
            auto f = a.failed();
            if (!f && !a.commit_error.empty()) {
                if (pg::request_error(a.commit_sqlstate))  // no statement to blame: a bug
                    spdlog::error("store: a group commit failed: {}", a.commit_error);
                return group_failed(std::move(group), "postgresql: " + a.commit_error);
            }
            if (!f) {
                core_.unsaved_players.clear();
                finish_group(group);
                return;
            }
            const pg::Result& r = a.results[*f];
            const Tag tag = tags[*f];
            if (!pg::request_error(r.sqlstate()) || tag.op < 0)
                return group_failed(std::move(group), "postgresql: " + r.error());
            // The request's own error: that operation fails alone (or, a rating written
            // meanwhile, is computed again); every other goes again, first in the queue.
            Op& bad = group[std::size_t(tag.op)];
            const bool again = tag.rating && (r.sqlstate() == "40001" || r.sqlstate() == "23505") &&
                               ++bad.attempts < kMaxRateAttempts;
            if (!again) {
                // A fenced write says so first (kFenced): the room drops the game.
                report(bad, (r.sqlstate() == "TF001" ? kFenced : "postgresql: ") + r.error(),
                       false);
                group.erase(group.begin() + tag.op);
            }
            for (auto it = group.rbegin(); it != group.rend(); ++it) q_.push_front(std::move(*it));
            writing_ = false;
            write_next();
        });
    }

    void finish_group(std::vector<Op>& group) {
        core_.count_commit();
        for (auto& op : group) report(op, std::nullopt, false);
        writing_ = false;
        succeeded();
        write_next();
    }

    void group_failed(std::vector<Op> group, const std::string& why) {
        wr_.close();  // whatever state the connection is in, the next group starts afresh
        failed(group.empty() ? "a write" : group.front().what(), why, int(group.size()));
        for (auto& op : group) report(op, why, true);
        writing_ = false;
        write_next();
    }

    // One operation's outcome, to its callback (store thread).
    void report(Op& op, const std::optional<std::string>& err, bool fault) {
        core_.report(op, err, fault);
    }

    // A fault (WriterCore::failed()): the store retries on its own after the backoff (a probe
    // write once connected), so that it becomes healthy again without anyone writing.
    void failed(const std::string& what, const std::string& why, int operations) {
        core_.failed(what, why, operations);
        retry_at_ = SteadyClock::now() + core_.backoff();
        retry_.expires_at(retry_at_);
        retry_.async_wait([this](boost::system::error_code ec) {
            if (!ec) probe();
        });
    }

    void probe() {
        if (core_.healthy() || writing_ || stopping_) return;
        writing_ = true;
        auto write = [this] {
            std::vector<Query> qs{prepared("probe", {num(epoch_ms())})};
            std::vector<Tag> tags{{-1, false}};
            for (const auto& p : core_.unsaved_players) append_player(qs, tags, p, -1);
            wr_.run(std::move(qs), [this](pg::Answer a) {
                writing_ = false;
                std::string why = a.error;
                if (why.empty())
                    if (auto f = a.failed()) why = a.results[*f].error();
                if (why.empty()) why = a.commit_error;
                if (!why.empty()) {
                    wr_.close();
                    failed("the probe write", why, 0);
                } else {
                    core_.unsaved_players.clear();
                    succeeded();
                }
                write_next();
            });
        };
        if (wr_.ready()) return write();
        wr_.connect([this, write](std::string err) {
            if (!err.empty()) {
                writing_ = false;
                failed("reconnecting", "the database is unreachable: " + err, 0);
                return write_next();
            }
            write();
        });
    }

    void succeeded() {
        if (core_.succeeded()) retry_.cancel();
    }

    const std::string url_;
    asio::io_context io_{1};
    asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
    pg::Conn wr_, rd_;
    std::thread thread_;

    // Store thread only.
    std::deque<Op> q_;
    bool writing_ = false;
    std::deque<ReadJob> rq_;
    bool reading_ = false;
    std::string read_error_;
    SteadyClock::time_point read_retry_at_;
    bool stopping_ = false;
    std::promise<void>* stopped_ = nullptr;

    // Faults: the retry after the backoff.
    asio::steady_timer retry_;
    SteadyClock::time_point retry_at_;
};

}  // namespace

std::unique_ptr<Store> open_pg_store(const PgOptions& options) {
    {
        pg::Blocking db(options.url);
        pg::prepare_database(db, options.accept_unsafe);
    }
    return std::make_unique<PgStore>(options);
}

}  // namespace tf::server
