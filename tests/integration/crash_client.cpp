// A client process for the crash test (crash_test.py): plays both seats of untimed games over
// TCP, one after another, with random legal setups and turns, until a stop file exists. Every
// setup or turn the server acknowledges is appended to a log file as a JSON line before the
// next one is sent, so the test can check that each of them is in the store's journal. When
// the server disappears (kill -9), it reconnects both seats with their tokens, resynchronizes
// from snapshots and goes on.
//
//   crash_client PORT LOGFILE STOPFILE SEED
#include <signal.h>

#include <boost/system/system_error.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "client/lib/connection.h"
#include "common/json.h"
#include "common/playout.h"

namespace {

using nlohmann::json;
using namespace tf;

struct Seat {
    std::unique_ptr<client::Connection> conn;
    std::string token;
    std::string name;
};

// A disconnection or an answer that calls for a resynchronization.
struct Resync : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Receives until a message of `type`; an error message throws (the caller resynchronizes).
json expect(client::Connection& c, const std::string& type) {
    for (;;) {
        json m = c.recv();
        if (m["type"] == type) return m;
        if (m["type"] == "error") throw Resync("expected " + type + ", got " + m.dump());
    }
}

class Player {
  public:
    Player(unsigned short port, std::string log, std::string stop, std::uint64_t seed)
        : port_(port), log_(log, std::ios::app), stop_(std::move(stop)), rng_(seed) {
        seats_[0].name = "crash-a";
        seats_[1].name = "crash-b";
    }

    int run() {
        int games = 0;
        while (!std::filesystem::exists(stop_)) {
            play_game();
            ++games;
        }
        std::cout << "crash_client: " << games << " games, " << acks_ << " acknowledged, "
                  << reconnects_ << " reconnections\n";
        return 0;
    }

  private:
    // Connects (retrying while the server is down) and says hello; returns the welcome.
    json connect(Seat& s) {
        for (int attempt = 0;; ++attempt) {
            try {
                s.conn = client::connect_tcp("127.0.0.1", port_);
                json hello = {{"type", "hello"}, {"version", 1}, {"name", s.name}};
                if (!s.token.empty()) hello["token"] = s.token;
                s.conn->send(hello);
                json w = s.conn->recv_type("welcome");
                s.token = w["token"];
                return w;
            } catch (const std::exception& e) {
                if (attempt > 1200) throw std::runtime_error("server never came back");
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        }
    }

    void play_game() {
        code_.clear();
        over_ = false;
        joined_ = false;
        game_.reset();
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
        json created = expect(*seats_[0].conn, "game_created");
        code_ = created["code"];
        json w1 = connect(seats_[1]);
        if (w1["games"].empty()) {
            seats_[1].conn->send({{"type", "join_game"}, {"code", code_}});
        } else {
            seats_[1].conn->send({{"type", "watch"}, {"code", code_}});
        }
        seats_[0].conn->send({{"type", "watch"}, {"code", code_}});
        load(expect(*seats_[1].conn, "snapshot"));
        joined_ = true;
        expect(*seats_[0].conn, "snapshot");
    }

    // Reconnects both seats and rebuilds the game from the server's snapshot. A game that is
    // gone after a restart has ended (only unfinished games are restored; its creation was
    // acknowledged, so it was stored).
    void resync() {
        json snap;
        for (int i = 0; i < 2; ++i) {
            json w = connect(seats_[i]);
            bool seated = false;
            for (auto& g : w["games"]) seated = seated || g == code_;
            if (i == 1 && !seated && !joined_) {
                seats_[1].conn->send({{"type", "join_game"}, {"code", code_}});
            } else {
                seats_[i].conn->send({{"type", "watch"}, {"code", code_}});
            }
            for (;;) {
                json m = seats_[i].conn->recv();
                if (m["type"] == "snapshot") {
                    snap = m;
                    break;
                }
                if (m["type"] == "error" && m["code"] == "no_such_game") {
                    over_ = true;
                    return;
                }
                if (m["type"] == "error") throw Resync("resync: " + m.dump());
            }
            if (i == 1) joined_ = true;
        }
        load(snap);
    }

    void load(const json& snap) {
        version_ = snap["version"];
        std::string status = snap["status"];
        over_ = status == "over" || status == "aborted" || status == "cancelled";
        auto g = game_from_json(snap["state"]);
        if (!g) throw std::runtime_error("bad snapshot state: " + g.error().message);
        game_ = *g;
        side_of_seat0_ =
            snap["players"]["silver"]["name"] == seats_[0].name ? Side::Silver : Side::Bronze;
    }

    // The side to move sends one setup or turn; both seats read up to its event.
    void step() {
        Game& g = *game_;
        if (g.over()) {
            over_ = true;
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
        msg["version"] = version_;
        msg["ref"] = "r" + std::to_string(++refs_);
        s.conn->send(msg);
        json ack;
        for (;;) {
            json m = s.conn->recv();
            if (m["type"] == "ack" && m["ref"] == msg["ref"]) {
                ack = m;
                break;
            }
            if (m["type"] == "error") throw Resync("error: " + m.dump());
        }
        std::int64_t v = ack["version"];
        log_ << json{{"code", code_}, {"version", v}, {"kind", kind}, {"data", msg[kind]}}.dump()
             << std::endl;
        ++acks_;
        for (Seat* x : {&s, &other}) {
            for (;;) {
                json m = x->conn->recv();
                if (m["type"] == "event" && m["version"] >= v) {
                    if (m["version"] > v) throw Resync("missed an event");
                    break;
                }
            }
        }
        if (kind == "setup") {
            auto st = setup_from_json(msg["setup"]);
            if (g.apply_setup(mover, *st)) throw std::runtime_error("acknowledged illegal setup");
        } else {
            auto t = turn_from_json(msg["turn"]);
            if (g.apply_turn(*t)) throw std::runtime_error("acknowledged illegal turn");
        }
        version_ = v;
        if (g.over()) {
            for (Seat* x : {&s, &other}) x->conn->recv_type("event");  // game_over
            over_ = true;
        }
    }

    unsigned short port_;
    std::ofstream log_;
    std::string stop_;
    Rng rng_;
    MoveList scratch_;
    Seat seats_[2];
    std::string code_;
    std::optional<Game> game_;
    std::int64_t version_ = 0;
    Side side_of_seat0_ = Side::Silver;
    bool over_ = false;
    bool joined_ = false;  // seat 1's join was acknowledged (it may be gone from `games` later)
    int refs_ = 0, acks_ = 0, reconnects_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::cerr << "usage: crash_client PORT LOGFILE STOPFILE SEED\n";
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    try {
        return Player((unsigned short)std::stoi(argv[1]), argv[2], argv[3], std::stoull(argv[4]))
            .run();
    } catch (const std::exception& e) {
        std::cerr << "crash_client: " << e.what() << "\n";
        return 1;
    }
}
