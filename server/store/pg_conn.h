// One PostgreSQL connection driven by an Asio io_context, on libpq's non-blocking API: the
// connect is PQconnectStartParams/PQconnectPoll, waiting on the connection's socket (taken
// again after every step, libpq may change it); queries go out in pipeline mode, a batch being
// one pipeline segment: one round trip and one implicit transaction (every statement commits
// at the Sync, or the first error rolls all of them back). Nothing here ever blocks.
//
// Not thread-safe: every call, and every callback, runs on the io_context's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct pg_conn;
struct pg_result;

namespace tf::server::pg {

using Param = std::optional<std::string>;  // nullopt: SQL NULL

struct Query {
    const char* prepared = nullptr;  // a statement prepared at connect, or null: run `sql`
    std::string sql;
    std::vector<Param> params;
};

// One statement's answer (text format).
class Result {
  public:
    explicit Result(pg_result* r = nullptr);
    bool ok() const;       // it ran (rows or a command)
    bool aborted() const;  // not run: an earlier statement of the batch failed
    std::string sqlstate() const;
    std::string error() const;
    int rows() const;
    bool null(int row, int col) const;
    std::string text(int row, int col) const;
    std::int64_t integer(int row, int col) const;
    double real(int row, int col) const;
    bool boolean(int row, int col) const;

  private:
    std::shared_ptr<pg_result> r_;
};

struct Answer {
    // The connection's trouble (it is closed then): nothing is known of the batch's outcome.
    std::string error;
    std::vector<Result> results;  // one per query, in order, when `error` is empty
    // An error after the last statement, at the implicit commit.
    std::string commit_error, commit_sqlstate;
    // The first failed statement, if any (the ones after it are aborted, nothing committed).
    std::optional<std::size_t> failed() const;
};

// The request's own errors (a broken key, a check of ours, bad data, a bug in a statement) as
// opposed to the database's trouble (down, disk full, shutting down, out of resources).
bool request_error(const std::string& sqlstate);

// A libpq message on one line.
std::string one_line(std::string why);

class Conn {
  public:
    using Statements = std::vector<std::pair<std::string, std::string>>;  // name, SQL
    Conn(boost::asio::io_context& io, std::string conninfo, Statements prepared);
    ~Conn();
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    // Connects and prepares every statement; done("") when ready, else done(why). Only while
    // not ready() and not connecting.
    void connect(std::function<void(std::string)> done);
    bool ready() const { return state_ == State::Ready; }
    bool busy() const { return state_ == State::Connecting || state_ == State::Running; }
    // One batch at a time, only when ready(). A batch that takes longer than `timeout` (the
    // database stopped answering) ends with the connection closed and an error.
    void run(std::vector<Query> queries, std::function<void(Answer)> done);
    void close();
    // Why the connection closed while idle ("" if it did not): the database went away.
    const std::string& lost() const { return lost_; }

    static constexpr std::chrono::seconds kTimeout{15};

  private:
    enum class State { Closed, Connecting, Ready, Running };
    void poll_connect(int status);
    void prepared(Answer a);
    void send();
    void pump();
    void arm(bool write);
    void fail(std::string why);
    void complete();
    void take_socket();
    void idle_input();

    boost::asio::io_context& io_;
    std::string conninfo_;
    Statements statements_;
    pg_conn* conn_ = nullptr;
    State state_ = State::Closed;
    boost::asio::posix::stream_descriptor sd_;
    int fd_ = -1;
    boost::asio::steady_timer timer_;
    std::uint64_t gen_ = 0;  // callbacks of an earlier connection or batch are ignored
    bool read_armed_ = false, write_armed_ = false, flushing_ = false;
    std::function<void(std::string)> connected_;
    std::function<void(Answer)> done_;
    std::size_t expected_ = 0, cur_ = 0;
    bool have_cur_ = false;
    Answer answer_;
    std::string lost_;
};

}  // namespace tf::server::pg
