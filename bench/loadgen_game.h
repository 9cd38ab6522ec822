// tf-loadgen's games: a Slot is one table of the load: two player connections and its
// spectators, playing legal random games one after the other on an open-loop schedule.
// IdleSet holds the connections that only connect (and say hello) and then stay silent.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "bench/loadgen_net.h"
#include "bench/loadgen_stats.h"
#include "common/game.h"
#include "common/playout.h"

namespace tf::loadgen {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

enum class Proto { Trunkfield, Relay };

struct Options {
    Transport transport = Transport::Ws;
    Proto proto = Proto::Trunkfield;
    std::string host = "127.0.0.1";
    unsigned short port = 8080;
    unsigned short port2 = 0;  // a cluster's second node: each game's second player there
    unsigned short port3 = 0;  // and a third: the spectators spread over the three
    int games = 10;
    double rate = 100;  // moves (setups and turns) per second, all games together
    double duration = 10;
    double warmup = 2;
    double drain = 3;    // after the window: time allowed for the last deliveries
    int spectators = 0;  // per game
    int idle = 0;
    bool idle_hello = true;
    bool public_games = true;
    int server_pid = 0;
    int threads = 1;
    int parallel = 256;  // connection handshakes in flight
    std::uint64_t seed = 1;
    bool keep_moves = false;  // --moves-csv: keep every measured move's instant and latency
    std::string run_id;       // relay room names: RUNID-SLOT
};

// Counters and samples of one slot; merged after the run.
struct Tally {
    Samples ack, opp, spec, lag;  // ms since the move's scheduled instant; lag: send - scheduled
    // `spec` by the node a spectator is on with --port2/--port3 (its tag % 3: 0 the first port,
    // the game's owner; 1 and 2 the others); without them the same split of one node's.
    Samples spec_by[3];
    // With Options::keep_moves: each measured move's scheduled instant and its latency to the
    // opponent in microseconds (bench/tail_attribution.py lines them up with a scheduler trace).
    std::vector<std::pair<TimePoint, std::int64_t>> moves;
    std::int64_t scheduled = 0;  // moves due within the window
    std::int64_t sent = 0;       // of those, sent
    std::int64_t delivered = 0;  // opponent receipts within the window (any move)
    std::int64_t games_started = 0;
    std::int64_t lost = 0;          // gaps in a version sequence
    std::int64_t undelivered = 0;   // events a subscriber still lacked at the end
    std::int64_t out_of_order = 0;  // a version at or below one already received
    std::map<std::string, std::int64_t> errors;
    void merge(const Tally& o);
};

struct Window {
    TimePoint start, end;
    bool in(TimePoint t) const { return t >= start && t < end; }
};

class Slot : public ConnHandler {
  public:
    Slot(int id, boost::asio::io_context& ioc, const Options& opt, Connector& connector);
    // Creates the connections (players, spectators) and queues them on the connector.
    void connect();
    // Every connection said hello (or joined its relay room), or failed.
    bool ready() const { return settled_.load() == int(conns_.size()); }
    // Starts the first game and the move schedule: the first move is due at `first_due`.
    void begin(TimePoint first_due, Window w);
    // Recomputes drained() on the strand: nothing scheduled is left and every subscriber has
    // every event.
    void poll_drained();
    bool drained() const { return drained_.load(); }
    // After the io_context stopped: counts what is still missing and hands over the tally.
    Tally finish();

    void on_open(Conn& c) override;
    void on_message(Conn& c, std::string_view text) override;
    void on_fail(Conn& c, const char* what, const std::string& message) override;

  private:
    enum class Stage { Idle, Creating, Joining, Playing, Ending, Dead };
    struct Sub {
        std::string code;
        std::int64_t last = -1;  // last version received; -1 before the snapshot
    };
    struct ConnState {
        bool ready = false;
        Sub cur, prev;
    };
    struct Flight {
        bool active = false;
        std::int64_t version = 0;  // the event version the move becomes
        TimePoint origin;          // when it was due (latency is measured from here)
        int opponent = 1;          // the connection whose receipt completes the move
    };
    struct Unacked {
        std::string ref;
        std::int64_t version;
        TimePoint origin;
    };

    void error(const std::string& what);
    void mark_ready(Conn& c);
    void start_game();
    void on_created(std::string_view code);
    void check_started();
    void on_sequence(Conn& c, std::string_view code, std::int64_t v, std::string_view kind);
    void on_ack(std::string_view ref, std::optional<std::int64_t> version);
    void on_timer();
    void arm();
    void maybe_send();
    void send_move(TimePoint origin);
    void after_delivery();
    Conn& player(Side s) { return *conns_[s == Side::Silver ? 0 : 1]; }

    const int id_;
    const Options& opt_;
    Connector& connector_;
    Strand strand_;
    boost::asio::steady_timer timer_;
    std::vector<std::shared_ptr<Conn>> conns_;  // 0 silver (creator), 1 bronze, 2.. spectators
    std::vector<ConnState> st_;
    std::atomic<int> settled_{0};
    std::atomic<bool> drained_{false};

    Stage stage_ = Stage::Idle;
    Window window_;
    std::chrono::nanoseconds interval_{};
    TimePoint next_due_;
    bool scheduling_ = false;
    std::deque<TimePoint> pending_;  // moves due but not sent yet (the previous one in flight)
    TimePoint ready_since_;          // a new game is ready: earlier dues count from here

    Game game_{Variant{}};
    Rng rng_;
    MoveList scratch_;
    std::string code_, prev_code_;
    std::int64_t version_ = 0;        // last event version of the current game (as sent/seen)
    std::int64_t final_version_ = 0;  // game_over's version once the game ended (Ending)
    std::int64_t prev_final_ = -1;    // last event version of the previous game
    std::int64_t refs_ = 0;
    bool joined_[2] = {false, false};  // creator saw the join event; joiner got its snapshot
    Flight flight_;
    std::vector<Unacked> unacked_;  // trunkfield: moves sent, not acknowledged yet
    std::array<std::pair<std::int64_t, TimePoint>, 256> origins_{};  // by version % 256
    Tally tally_;
};

// Idle connections: connect, say hello (trunkfield, unless disabled), then nothing.
class IdleSet : public ConnHandler {
  public:
    IdleSet(boost::asio::io_context& ioc, const Options& opt, Connector& connector);
    void connect();
    int ready() const { return ready_.load(); }
    int settled() const { return settled_.load(); }
    std::map<std::string, std::int64_t> errors();

    void on_open(Conn& c) override;
    void on_message(Conn& c, std::string_view text) override;
    void on_fail(Conn& c, const char* what, const std::string& message) override;

  private:
    const Options& opt_;
    Connector& connector_;
    Strand strand_;
    std::vector<std::shared_ptr<Conn>> conns_;
    std::atomic<int> ready_{0}, settled_{0};
    std::vector<char> done_;  // per connection: counted in settled_ (strand only)
    std::mutex m_;
    std::map<std::string, std::int64_t> errors_;
};

}  // namespace tf::loadgen
