// A client process for the crash tests (crash_test.py, pg_kill_test.py, cluster_test.py): plays
// both seats of untimed games over TCP, one after another, with random legal setups and turns,
// until a stop file exists. Every setup or turn the server acknowledges is appended to a log
// file as a JSON line before the next one is sent, so the test can check that each of them is
// in the store's journal:
//   {"code":"k3v9qa","version":7,"kind":"turn","data":{…},"t":1767000000123}   (t: wall clock, ms)
//   {"code":"k3v9qa","over":true}                                             (the game ended)
//   {"gap":{"game":"k3v9qa","expected":8,"got":10},"t":…}                       (a missed event)
//
// PORTS is one TCP port or a comma-separated list of them (the nodes of a cluster). The two
// seats of game k start on ports[(k + i) % n], and every reconnection of a seat goes to the
// next port of the list (skipping those that refuse, with a short backoff, until the stop file
// exists), so the clients of a killed node land on the others. A reconnected seat resumes with
// `watch {code, since_version: LAST_SEEN}`; each seat checks that the versioned events of its
// game arrive contiguously (a snapshot resets its count). A gap is logged and repaired with a
// snapshot. The local game is the fold of the server's events (each applied once, whichever
// seat sees it first): a move is chosen from it and sent with its version, and a refusal that
// names a newer version means events are still on their way (read them, choose again).
//
//   crash_client PORTS LOGFILE STOPFILE SEED
//
// TF_CRASH_RECV_TIMEOUT_MS (default 5000): a connection that answers nothing for that long (a
// stopped node) counts as lost.
#include <signal.h>

#include <boost/system/system_error.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "client/lib/connection.h"
#include "common/json.h"
#include "common/playout.h"

namespace {

using nlohmann::json;
using namespace tf;
using Clock = std::chrono::steady_clock;

struct Seat {
    std::unique_ptr<client::Connection> conn;
    std::string token;
    std::string name;
    std::size_t port = 0;    // index of the node it uses in the list of ports
    bool fresh = true;       // its first connection of the current game is still to be made
    std::int64_t seen = -1;  // the last version of the game it received (-1: no snapshot yet)
};

// An answer that calls for a resynchronization (reconnecting both seats).
struct Resync : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A connection that answered nothing within the receive timeout: treated as lost.
struct Unresponsive : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Side side_of(const json& name) {
    return name == "silver" ? Side::Silver : Side::Bronze;
}

// Events that carry the game's version without adding one (PROTOCOL.md "Server → client").
bool unversioned(const json& event) {
    const std::string kind = event.value("kind", "");
    if (kind == "spectators" || kind == "ratings") return true;
    return kind == "chat" && event["payload"].value("room", "") == "spectators";
}

class Player {
  public:
    Player(std::vector<unsigned short> ports, std::string log, std::string stop, std::uint64_t seed,
           std::chrono::milliseconds recv_timeout)
        : ports_(std::move(ports)),
          log_(log, std::ios::app),
          stop_(std::move(stop)),
          rng_(seed),
          recv_timeout_(recv_timeout) {
        seats_[0].name = "crash-a";
        seats_[1].name = "crash-b";
    }

    int run() {
        while (!std::filesystem::exists(stop_)) {
            play_game();
            ++games_;
        }
        std::cout << "crash_client: " << games_ << " games, " << acks_ << " acknowledged, "
                  << reconnects_ << " reconnections (seats resumed: " << resumes_
                  << " with since_version, " << snapshots_ << " from a snapshot), " << gaps_
                  << " gaps\n";
        return 0;
    }

  private:
    json recv(Seat& s) {
        auto text = s.conn->recv_text_for(recv_timeout_);
        if (!text) throw Unresponsive("no message from port " + std::to_string(ports_[s.port]));
        return json::parse(*text);
    }

    // Connects to the seat's next node (its first one for a new game), skipping nodes that do
    // not answer, and says hello; returns the welcome. Retries forever, but gives up 30 s after
    // the stop file appeared.
    json connect(Seat& s) {
        if (!s.fresh) s.port = (s.port + 1) % ports_.size();
        s.fresh = false;
        s.conn.reset();
        std::optional<Clock::time_point> stopping;
        for (int failures = 0;; ++failures) {
            try {
                s.conn = client::connect_tcp("127.0.0.1", ports_[s.port]);
                json hello = {{"type", "hello"}, {"version", 1}, {"name", s.name}};
                if (!s.token.empty()) hello["token"] = s.token;
                s.conn->send(hello);
                for (;;) {
                    json m = recv(s);
                    if (m["type"] == "welcome") {
                        s.token = m["token"];
                        return m;
                    }
                    if (m["type"] == "error") throw Resync("hello: " + m.dump());
                }
            } catch (const std::exception& e) {
                s.conn.reset();
                if (failures % 100 == 99)
                    std::cerr << "crash_client: connect: " << e.what() << "\n";
                s.port = (s.port + 1) % ports_.size();
                if (std::filesystem::exists(stop_)) {
                    if (!stopping) stopping = Clock::now();
                    if (Clock::now() - *stopping > std::chrono::seconds(30))
                        throw std::runtime_error("no server answered for 30 s after the stop file");
                }
                const int n = int(ports_.size());
                std::this_thread::sleep_for(
                    std::chrono::milliseconds(std::min(50 * (1 + failures / n), 500)));
            }
        }
    }

    void play_game() {
        code_.clear();
        over_ = false;
        joined_ = false;
        force_snapshot_ = false;
        game_.reset();
        applied_ = -1;
        for (std::size_t i = 0; i < 2; ++i) {
            seats_[i].port = (std::size_t(games_) + i) % ports_.size();
            seats_[i].fresh = true;
            seats_[i].seen = -1;
        }
        for (;;) {
            try {
                if (code_.empty()) {
                    start();
                } else {
                    resync();
                }
                while (!over_) step();
                log_ << json{{"code", code_}, {"over", true}}.dump() << std::endl;
                return;
            } catch (const Resync& e) {
                ++reconnects_;  // an unexpected answer: resync, slowly if it keeps happening
                std::cerr << "crash_client: " << e.what() << "\n";
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            } catch (const Unresponsive& e) {
                ++reconnects_;  // a stopped node: try the next one
                std::cerr << "crash_client: " << e.what() << "\n";
            } catch (const client::Closed&) {
                ++reconnects_;  // the server went away: reconnect and resync
            } catch (const boost::system::system_error&) {
                ++reconnects_;  // a write to the dead server failed: the same
            }
        }
    }

    // Creates the game on seat 0 and joins it from seat 1. After a crash in between, the
    // welcome's list of seated games tells whether the creation (or the join) was stored.
    void start() {
        json w0 = connect(seats_[0]);
        if (!w0["games"].empty()) {
            code_ = w0["games"][0];
            return resync();
        }
        seats_[0].conn->send({{"type", "create_game"},
                              {"variant", {{"size", 7}, {"elephants", 4}}},
                              {"time_control", nullptr},
                              {"color", "silver"},
                              {"public", true}});
        for (;;) {
            json m = recv(seats_[0]);
            if (m["type"] == "game_created") {
                code_ = m["code"];
                break;
            }
            if (m["type"] == "error") throw Resync("create_game: " + m.dump());
        }
        await_snapshot(seats_[0]);  // the creation's, version 0
        json w1 = connect(seats_[1]);
        // Seated in this game, not in any: a node resumed after a pause beyond its lease may list
        // games it no longer holds (cluster_test.py d), and a watch instead of the join would
        // leave the game waiting for its opponent forever.
        const bool seated = seated_in(w1);
        seats_[1].conn->send({{"type", seated ? "watch" : "join_game"}, {"code", code_}});
        await_snapshot(seats_[1]);
        joined_ = true;
    }

    // Reconnects both seats. A seat that has seen the game resumes from its last version with
    // `watch since_version` (the missed events, or a snapshot when the server has not kept
    // them); one that has not, or after a refusal that may mean our mirror is wrong, asks for a
    // snapshot. A game that is gone after a restart has ended (only unfinished games are
    // restored; its creation was acknowledged, so it was stored).
    void resync() {
        for (int i = 0; i < 2; ++i) {
            Seat& s = seats_[i];
            json w = connect(s);
            const bool join = i == 1 && !seated_in(w) && !joined_;
            const bool snapshot = join || !game_ || s.seen < 0 || force_snapshot_;
            json msg = {{"type", join ? "join_game" : "watch"}, {"code", code_}};
            if (!snapshot) msg["since_version"] = s.seen;
            ++(snapshot ? snapshots_ : resumes_);
            s.conn->send(msg);
            if (snapshot) await_snapshot(s);
            if (over_) return;
            if (i == 1) joined_ = true;
        }
        force_snapshot_ = false;
    }

    // Whether a welcome lists this game among the seat's unfinished games.
    bool seated_in(const json& welcome) const {
        for (const auto& g : welcome.value("games", json::array()))
            if (g == code_) return true;
        return false;
    }

    void await_snapshot(Seat& s) {
        for (;;) {
            json m = recv(s);
            take(s, m);
            if (over_ || (m["type"] == "snapshot" && m["game"] == code_)) return;
        }
    }

    // Reads seat `s` until it has seen version `v` (or the game ended).
    void catch_up(Seat& s, std::int64_t v) {
        while (!over_ && s.seen < v) take(s, recv(s));
    }

    // Handles one message of seat `s` that is not the answer being waited for: a snapshot of
    // the game (re)loads it, an event is checked for contiguity and applied to the mirror once,
    // an error ends the game (no_such_game: it is over and gone) or calls for a resync.
    void take(Seat& s, const json& m) {
        const std::string type = m.value("type", "");
        if (type == "error") {
            if (m.value("code", "") == "no_such_game") {
                over_ = true;
                return;
            }
            throw Resync("error: " + m.dump());
        }
        if (m.value("game", "") != code_) return;
        if (type == "snapshot") {
            s.seen = m["version"];
            if (!game_ || s.seen >= applied_) load(m);
            return;
        }
        if (type != "event" || unversioned(m)) return;
        const std::int64_t v = m["version"];
        if (s.seen < 0 || v <= s.seen) return;  // before this seat's snapshot, or a duplicate
        if (v != s.seen + 1) {
            log_ << json{{"gap", {{"game", code_}, {"expected", s.seen + 1}, {"got", v}}},
                         {"t", wall_ms()}}
                        .dump()
                 << std::endl;
            ++gaps_;
            force_snapshot_ = true;
            throw Resync("gap: expected v" + std::to_string(s.seen + 1) + " of " + code_ +
                         ", got v" + std::to_string(v));
        }
        s.seen = v;
        if (v <= applied_) return;  // the other seat saw it first
        applied_ = v;
        apply(m);
    }

    void apply(const json& event) {
        const std::string kind = event["kind"];
        const json& p = event["payload"];
        const std::string where = " (v" + std::to_string(applied_) + " of " + code_ + ")";
        if (kind == "setup") {
            auto st = setup_from_json(p["setup"]);
            if (!st || game_->apply_setup(side_of(p["side"]), *st))
                throw std::runtime_error("the server's setup does not apply" + where);
        } else if (kind == "turn") {
            auto t = turn_from_json(p["turn"]);
            if (!t || game_->apply_turn(*t))
                throw std::runtime_error("the server's turn does not apply" + where);
        } else if (kind == "game_over" || kind == "cancel") {
            over_ = true;
        }
    }

    void load(const json& snap) {
        applied_ = snap["version"];
        std::string status = snap["status"];
        over_ = status == "over" || status == "aborted" || status == "cancelled";
        auto g = game_from_json(snap["state"]);
        if (!g) throw std::runtime_error("bad snapshot state: " + g.error().message);
        game_ = *g;
        side_of_seat0_ =
            snap["players"]["silver"]["name"] == seats_[0].name ? Side::Silver : Side::Bronze;
    }

    // The side to move sends one setup or turn, chosen from the mirror at version applied_;
    // both seats then read up to its event (which applies it). When the rules have ended the
    // game, waits for the server's game_over.
    void step() {
        Game& g = *game_;
        if (g.over()) {
            while (!over_) take(seats_[0], recv(seats_[0]));
            return;
        }
        Side mover = g.to_move();
        Seat& s = seats_[mover == side_of_seat0_ ? 0 : 1];
        Seat& other = seats_[mover == side_of_seat0_ ? 1 : 0];
        json msg;
        std::string kind;
        if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
            Setup st = random_setup(g, rng_);
            msg = {{"type", "setup"}, {"game", code_}, {"setup", to_json(st)}};
            kind = "setup";
        } else {
            Turn t;
            Move m;
            if (random_move(g, rng_, scratch_, m)) t.elephant = g.to_elephant_move(m);
            msg = {{"type", "turn"}, {"game", code_}, {"turn", to_json(t)}};
            kind = "turn";
        }
        const std::int64_t sent = applied_;
        msg["version"] = sent;
        msg["ref"] = next_ref();
        s.conn->send(msg);
        std::int64_t v = 0;
        for (;;) {
            json m = recv(s);
            if (m["type"] == "ack" && m["ref"] == msg["ref"]) {
                v = m["version"];
                break;
            }
            if (m["type"] == "error" && m.value("ref", "") == msg["ref"]) {
                const std::int64_t now = m.value("version", std::int64_t(-1));
                if (now > sent) return catch_up(s, now);  // events on their way: choose again
                const std::string code = m.value("code", "");
                force_snapshot_ = code != "store_failed" && code != "store_unavailable";
                throw Resync("error: " + m.dump());
            }
            take(s, m);
            if (over_) return;
        }
        log_ << json{{"code", code_},
                     {"version", v},
                     {"kind", kind},
                     {"data", msg[kind]},
                     {"t", wall_ms()}}
                    .dump()
             << std::endl;
        ++acks_;
        catch_up(s, v);
        catch_up(other, v);
    }

    std::string next_ref() { return "r" + std::to_string(++refs_); }

    std::vector<unsigned short> ports_;
    std::ofstream log_;
    std::string stop_;
    Rng rng_;
    std::chrono::milliseconds recv_timeout_;
    MoveList scratch_;
    Seat seats_[2];
    std::string code_;
    std::optional<Game> game_;
    std::int64_t applied_ = -1;  // the version the mirror game_ reflects
    Side side_of_seat0_ = Side::Silver;
    bool over_ = false;
    bool joined_ = false;  // seat 1's join was acknowledged (it may be gone from `games` later)
    bool force_snapshot_ = false;  // the next resync asks for snapshots, not missed events
    int games_ = 0, refs_ = 0, acks_ = 0, reconnects_ = 0, gaps_ = 0, resumes_ = 0, snapshots_ = 0;
};

// "8081" or "8081,8083,8085".
std::vector<unsigned short> parse_ports(const std::string& text) {
    std::vector<unsigned short> ports;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const int p = std::stoi(item);
        if (p <= 0 || p > 65535) throw std::invalid_argument("bad port " + item);
        ports.push_back((unsigned short)p);
    }
    if (ports.empty()) throw std::invalid_argument("no port");
    return ports;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::cerr << "usage: crash_client PORT[,PORT...] LOGFILE STOPFILE SEED\n";
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    try {
        const char* timeout = std::getenv("TF_CRASH_RECV_TIMEOUT_MS");
        return Player(parse_ports(argv[1]), argv[2], argv[3], std::stoull(argv[4]),
                      std::chrono::milliseconds(timeout ? std::stoi(timeout) : 5000))
            .run();
    } catch (const std::exception& e) {
        std::cerr << "crash_client: " << e.what() << "\n";
        return 1;
    }
}
