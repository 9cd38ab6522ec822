// Tournaments on the server (issue 38; docs/TOURNAMENTS.md "On the server"): their requests
// (make, list, show, join, withdraw) and their direction, on a thread of their own with a side
// connection to the store (server/store/tournament_db.h).
//
// Every `pass` (a second), the thread directs each tournament this node may: it takes or renews
// the tournament's lease, rebuilds its decisions from the store, reads the results of its games
// being played from the games table, asks it what is due (tournament::Tournament::step) and
// writes the decisions under the lease's epoch (nothing, when another node took it over). Each
// game it paired gets a fresh code in that same write; then the game is made under that code
// (`make`, on the network threads), and its two players are told. A game paired and written
// but not made (its director died between the two) is made by whoever directs next: the code
// is the pairing's, so the game exists once whoever makes it. A game is stored whole, both seats
// taken (RoomParams::opponent), so a stored game needs no more than its players told; a node
// that takes a tournament over tells the players of its games being played again, once each
// (SocialService::notify_once).
#pragma once

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "server/base/participant.h"
#include "server/director/schedule.h"
#include "server/director/tournament_spec.h"
#include "server/room/game_record.h"
#include "server/store/side_thread.h"
#include "server/store/tournament_db.h"

namespace tf::server {

class TournamentService : public std::enable_shared_from_this<TournamentService> {
  public:
    using Open = SideThread<TournamentDb>::Open;
    // A game a director paired, to be made under `code`; or, `made`, one stored already whose
    // players are told again (once each: a director that took over cannot know whether the one
    // before it told them).
    struct MakeGame {
        std::string tournament, name, code;
        int round = 0;
        Player silver, bronze;
        RoomParams params;
        bool made = false;
    };
    // `make` runs on `ex` for each game to make; `node` names this node in the leases.
    TournamentService(Open open, Store::Executor ex, std::string node,
                      std::chrono::milliseconds pass, std::function<void(MakeGame)> make);

    static constexpr int kMaxQueued = 64;  // requests waiting; the director's passes never wait
    static constexpr std::int64_t kLeaseMs = 10'000;

    // The operator's schedule (before start()): each pass makes the slots due.
    void schedule(std::vector<ScheduledTournament> entries);
    void start() { pass(); }
    void stop();
    // A pass as soon as the thread is free (after a join: an arena pairs at once).
    void soon();
    const std::string& node() const { return node_; }

    // A request's job on the thread: SideThread::run (refused when kMaxQueued wait).
    template <class T>
    bool run(std::function<T(TournamentDb&)> job, Store::Executor ex,
             std::function<void(Read<T>)> then) {
        return thread_.run<T>(std::move(job), std::move(ex), std::move(then), true);
    }

    // One pass of direction (on the thread), `clock` telling the time (epoch ms): the games
    // to make. Public for tests.
    std::vector<MakeGame> direct(TournamentDb& db, const std::function<std::int64_t()>& clock);

  private:
    void pass();
    void made(std::vector<MakeGame> games);
    // The schedule's tournaments due at `now` made, once each in the store (on the thread).
    void make_scheduled(TournamentDb& db, std::int64_t now);

    Store::Executor ex_;
    std::string node_;
    std::chrono::milliseconds every_;
    std::function<void(MakeGame)> make_;
    boost::asio::steady_timer timer_;
    bool passing_ = false, again_ = false;  // on ex_
    std::atomic<bool> stopped_{false};
    // Games handed to `make` and when, so that a pass does not make one twice while its row
    // is being written (on ex_).
    std::map<std::string, std::chrono::steady_clock::time_point> making_;
    std::map<std::string, std::int64_t> epochs_;  // the lease's epoch of each directed (thread)
    std::vector<ScheduledTournament> schedule_;   // set before start()
    std::vector<std::string> last_slot_;          // each entry's last slot made (thread)
    SideThread<TournamentDb> thread_;             // last: joined first
};

// A fresh tournament id: random_code(8); ids are read as game codes are (proto::is_game_code).
std::string tournament_id();

}  // namespace tf::server
