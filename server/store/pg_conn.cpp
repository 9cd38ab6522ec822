#include "server/store/pg_conn.h"

#include "server/store/pg_schema.h"

#include <libpq-fe.h>

#include <boost/asio/post.hpp>
#include <cstdlib>

namespace tf::server::pg {

namespace asio = boost::asio;

Result::Result(pg_result* r) : r_(r, [](pg_result* p) { PQclear(p); }) {}

bool Result::ok() const {
    auto s = PQresultStatus(r_.get());
    return r_ && (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK);
}
bool Result::aborted() const {
    return !r_ || PQresultStatus(r_.get()) == PGRES_PIPELINE_ABORTED;
}
std::string Result::sqlstate() const {
    const char* s = r_ ? PQresultErrorField(r_.get(), PG_DIAG_SQLSTATE) : nullptr;
    return s ? s : "";
}
std::string Result::error() const {
    if (!r_) return "no answer";
    if (aborted()) return "not run (an earlier statement failed)";
    const char* m = PQresultErrorField(r_.get(), PG_DIAG_MESSAGE_PRIMARY);
    return m ? m : PQresultErrorMessage(r_.get());
}
int Result::rows() const {
    return r_ ? PQntuples(r_.get()) : 0;
}
bool Result::null(int row, int col) const {
    return PQgetisnull(r_.get(), row, col) != 0;
}
std::string Result::text(int row, int col) const {
    return std::string(PQgetvalue(r_.get(), row, col),
                       std::size_t(PQgetlength(r_.get(), row, col)));
}
std::int64_t Result::integer(int row, int col) const {
    return std::strtoll(PQgetvalue(r_.get(), row, col), nullptr, 10);
}
double Result::real(int row, int col) const {
    return std::strtod(PQgetvalue(r_.get(), row, col), nullptr);
}
bool Result::boolean(int row, int col) const {
    return PQgetvalue(r_.get(), row, col)[0] == 't';
}

std::optional<std::size_t> Answer::failed() const {
    for (std::size_t i = 0; i < results.size(); ++i)
        if (!results[i].ok() && !results[i].aborted()) return i;
    return std::nullopt;
}

bool request_error(const std::string& s) {
    // 22 data exception, 23 integrity constraint, 42 syntax or access rule, P0 raised by a
    // check of ours (tf_check), 40001 a serialization failure (a rating written meanwhile),
    // TF our own class (TF001: a write of a game this node no longer owns, fenced).
    return s.rfind("22", 0) == 0 || s.rfind("23", 0) == 0 || s.rfind("42", 0) == 0 ||
           s.rfind("P0", 0) == 0 || s == "40001" || s.rfind("TF", 0) == 0;
}

Conn::Conn(asio::io_context& io, std::string conninfo, Statements prepared)
    : io_(io),
      conninfo_(std::move(conninfo)),
      statements_(std::move(prepared)),
      sd_(io),
      timer_(io) {}

Conn::~Conn() {
    close();
}

void Conn::close() {
    ++gen_;
    timer_.cancel();
    if (sd_.is_open()) sd_.release();  // the socket is libpq's: PQfinish closes it
    fd_ = -1;
    read_armed_ = write_armed_ = flushing_ = false;
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
    state_ = State::Closed;
}

void Conn::take_socket() {
    const int fd = PQsocket(conn_);
    if (fd == fd_) return;
    if (sd_.is_open()) sd_.release();
    read_armed_ = write_armed_ = false;
    fd_ = fd;
    if (fd >= 0) sd_.assign(fd);
}

void Conn::connect(std::function<void(std::string)> done) {
    close();
    connected_ = std::move(done);
    // Our defaults first: the connection string (dbname, expanded) may override them.
    const char* keys[] = {"application_name",
                          "keepalives",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "dbname",
                          nullptr};
    const char* values[] = {"trunkfield-server", "1", "10", "5", "3", conninfo_.c_str(), nullptr};
    conn_ = PQconnectStartParams(keys, values, 1);
    if (!conn_) return fail("out of memory");
    if (PQstatus(conn_) == CONNECTION_BAD) return fail(PQerrorMessage(conn_));
    state_ = State::Connecting;
    const auto gen = gen_;
    timer_.expires_after(kTimeout);
    timer_.async_wait([this, gen](boost::system::error_code ec) {
        if (!ec && gen == gen_) fail("no answer within " + std::to_string(kTimeout.count()) + " s");
    });
    poll_connect(PGRES_POLLING_WRITING);
}

void Conn::poll_connect(int status) {
    if (status == PGRES_POLLING_FAILED) return fail(PQerrorMessage(conn_));
    if (status == PGRES_POLLING_OK) {
        timer_.cancel();
        quiet(conn_);
        if (PQsetnonblocking(conn_, 1) != 0 || PQenterPipelineMode(conn_) != 1)
            return fail(PQerrorMessage(conn_));
        take_socket();
        state_ = State::Running;
        for (const auto& [name, sql] : statements_)
            if (!PQsendPrepare(conn_, name.c_str(), sql.c_str(), 0, nullptr))
                return fail(PQerrorMessage(conn_));
        done_ = [this](Answer a) { prepared(std::move(a)); };
        expected_ = statements_.size();
        return send();
    }
    take_socket();
    if (fd_ < 0) return fail(PQerrorMessage(conn_));
    const auto gen = gen_;
    sd_.async_wait(status == PGRES_POLLING_READING ? asio::posix::descriptor_base::wait_read
                                                   : asio::posix::descriptor_base::wait_write,
                   [this, gen](boost::system::error_code ec) {
                       if (gen != gen_) return;
                       if (ec) return fail(ec.message());
                       poll_connect(PQconnectPoll(conn_));
                   });
}

void Conn::prepared(Answer a) {
    std::string why = a.error;
    if (why.empty())
        if (auto f = a.failed())
            why = "preparing " + statements_[*f].first + ": " + a.results[*f].error();
    if (!why.empty()) return fail(why);
    state_ = State::Ready;
    lost_.clear();
    arm(false);
    auto done = std::move(connected_);
    connected_ = nullptr;
    if (done) done("");
}

void Conn::run(std::vector<Query> queries, std::function<void(Answer)> done) {
    if (state_ != State::Ready) {
        asio::post(io_, [done = std::move(done)] { done(Answer{"not connected", {}, {}, {}}); });
        return;
    }
    state_ = State::Running;
    done_ = std::move(done);
    for (const auto& q : queries) {
        std::vector<const char*> values;
        values.reserve(q.params.size());
        for (const auto& p : q.params) values.push_back(p ? p->c_str() : nullptr);
        const int n = int(values.size());
        const int ok = q.prepared ? PQsendQueryPrepared(conn_, q.prepared, n, values.data(),
                                                        nullptr, nullptr, 0)
                                  : PQsendQueryParams(conn_, q.sql.c_str(), n, nullptr,
                                                      values.data(), nullptr, nullptr, 0);
        if (!ok) return fail(PQerrorMessage(conn_));
    }
    expected_ = queries.size();
    const auto gen = gen_;
    timer_.expires_after(kTimeout);
    timer_.async_wait([this, gen](boost::system::error_code ec) {
        if (!ec && gen == gen_)
            fail("the database did not answer within " + std::to_string(kTimeout.count()) + " s");
    });
    send();
}

// After the statements of a batch were queued: the Sync, then the pump sends and reads.
void Conn::send() {
    answer_ = Answer{};
    answer_.results.reserve(expected_);
    cur_ = 0;
    have_cur_ = false;
    if (PQpipelineSync(conn_) != 1) return fail(PQerrorMessage(conn_));
    flushing_ = true;
    pump();
}

// Sends what is still buffered and reads what has arrived, then waits for the socket again:
// for reading always (the server's answers, which must be read even while we still send, or
// both sides could wait on full buffers), for writing while libpq holds unsent data.
void Conn::pump() {
    if (flushing_) {
        const int rc = PQflush(conn_);
        if (rc < 0) return fail(PQerrorMessage(conn_));
        flushing_ = rc == 1;
    }
    if (!PQconsumeInput(conn_)) return fail(PQerrorMessage(conn_));
    while (!PQisBusy(conn_)) {
        PGresult* r = PQgetResult(conn_);
        if (!r) {  // the end of one statement's results
            if (have_cur_) {
                ++cur_;
                have_cur_ = false;
            }
            continue;
        }
        const auto status = PQresultStatus(r);
        if (status == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            return complete();
        }
        if (cur_ < expected_) {
            if (!have_cur_) {
                answer_.results.emplace_back(r);
                have_cur_ = true;
            } else if (status == PGRES_FATAL_ERROR) {  // an error after rows: that counts
                answer_.results.back() = Result(r);
            } else {
                PQclear(r);
            }
        } else {  // after every statement: the implicit commit failed
            Result e(r);
            if (answer_.commit_error.empty()) {
                answer_.commit_error = e.error();
                answer_.commit_sqlstate = e.sqlstate();
            }
        }
    }
    if (PQstatus(conn_) == CONNECTION_BAD) return fail(PQerrorMessage(conn_));
    arm(false);
    if (flushing_) arm(true);
}

void Conn::arm(bool write) {
    bool& armed = write ? write_armed_ : read_armed_;
    if (armed || fd_ < 0) return;
    armed = true;
    const auto gen = gen_;
    sd_.async_wait(
        write ? asio::posix::descriptor_base::wait_write : asio::posix::descriptor_base::wait_read,
        [this, gen, write](boost::system::error_code ec) {
            if (gen != gen_) return;
            (write ? write_armed_ : read_armed_) = false;
            if (ec) return fail(ec.message());
            if (state_ == State::Running) return pump();
            if (state_ == State::Ready && !write) idle_input();
        });
}

// Between batches the socket stays watched: a database that went away (restarted, the
// connection terminated by an administrator) is noticed now, not by the next batch, which
// would otherwise fail for a connection that was dead before it was sent.
void Conn::idle_input() {
    if (!PQconsumeInput(conn_) || PQstatus(conn_) == CONNECTION_BAD) {
        lost_ = one_line(PQerrorMessage(conn_));
        close();
        return;
    }
    arm(false);
}

void Conn::complete() {
    timer_.cancel();
    // A batch that ended early (the server closed in the middle) leaves results missing.
    while (answer_.results.size() < expected_) answer_.results.emplace_back(nullptr);
    state_ = State::Ready;
    arm(false);
    auto done = std::move(done_);
    done_ = nullptr;
    if (done) done(std::move(answer_));
}

// libpq's messages span lines ("...\n\tThis probably means..."): one line for our logs.
std::string one_line(std::string why) {
    std::string out;
    for (char c : why) {
        if (c == '\n' || c == '\t') c = ' ';
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void Conn::fail(std::string why) {
    why = one_line(std::move(why));
    if (why.empty()) why = "the connection to the database failed";
    close();
    auto connected = std::move(connected_);
    auto done = std::move(done_);
    connected_ = nullptr;
    done_ = nullptr;
    // Reported from a fresh handler: the callback may connect again right away. A failure
    // while preparing the statements is the connect's.
    if (connected)
        asio::post(io_, [connected = std::move(connected), why] { connected(why); });
    else if (done)
        asio::post(io_, [done = std::move(done), why] { done(Answer{why, {}, {}, {}}); });
}

}  // namespace tf::server::pg
