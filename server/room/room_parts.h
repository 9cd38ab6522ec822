// The parts a Room (room.h) is made of, each owning one concern's state, with its logic where
// it needs nothing of the room: the limits from the server's settings, the chat, the offers
// that stand between the players (their rules are GameRecord's, game_record.h), the seats'
// ratings, the deadlines of time and presence, the events kept for reconnection, the state of
// a suspension after a store fault, the computer opponent. Unit tests:
// tests/server/room_parts_test.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/bot.h"
#include "common/engine_driver.h"
#include "common/game.h"
#include "common/types.h"
#include "proto/messages.h"
#include "proto/status.h"
#include "server/accounts/ratings.h"
#include "server/base/config.h"
#include "server/base/participant.h"
#include "server/room/clock.h"
#include "server/room/room_ops.h"

#include <boost/asio/steady_timer.hpp>

namespace tf::server {

// The durations and counts a room lives by, from the server's settings (the flags of the same
// names, server/base/config.h) and the game's time control.
struct RoomLimits {
    SteadyClock::duration grace, award, start_timeout, retention, open_away, open_cancel;
    // A player sitting on a move this long in a lost position is stalling (room_time.cpp):
    // --stall-seconds when set, else three times a turn's share of the time (the initial time
    // over 40 turns, plus the increment), at least a minute; 3 minutes untimed.
    SteadyClock::duration stall;
    SteadyClock::duration day;  // of correspondence clocks (--correspondence-day-seconds)
    SteadyClock::duration chat_window;
    int chat_lines = 0;
    std::size_t history = 0;  // events kept for reconnection while the game goes on

    // A correspondence game's (`tc` of days per move): the setups and silver's first turn have
    // two moves' time, its open game stays in the lobby while the creator is away and lapses
    // after kOpenDays.
    static RoomLimits from(const Config& cfg,
                           const std::optional<proto::TimeControl>& tc = std::nullopt);
    static constexpr int kOpenDays = 14;
};

// The chat: each player's recent lines for the rate limit (at most `lines` per `window`), and
// the last kLog lines of both rooms for snapshots.
class RoomChat {
  public:
    static constexpr std::size_t kLog = 50;
    RoomChat(SteadyClock::duration window, int lines) : window_(window), lines_(lines) {}

    // Whether `player_id` may say a line at `now`; counted when it may.
    bool allow(const std::string& player_id, TimePoint now);
    // A line said (or replayed from the journal), for the snapshots.
    void remember(const proto::ChatEv& line);
    // What a snapshot shows: every line for a spectator, the players' room's for a player.
    std::vector<proto::ChatEv> shown(bool for_spectator) const;
    void clear_log() { log_.clear(); }
    // The game is over: nobody's rate needs keeping.
    void forget_senders() { times_.clear(); }

  private:
    SteadyClock::duration window_;
    int lines_;
    std::deque<proto::ChatEv> log_;
    std::map<std::string, std::deque<TimePoint>> times_;  // per player id
};

// What stands between the players: a draw offer, a takeback request, a rematch offer, and what
// each side has asked since its last turn (once a turn each: room_play.cpp).
struct RoomOffers {
    std::optional<Side> draw;                 // the side whose draw offer stands
    std::optional<Side> takeback;             // the side whose takeback request stands
    bool takeback_asked[2] = {false, false};  // since that side's last turn
    bool draw_offered[2] = {false, false};    // since that side's last turn
    std::optional<Side> rematch;              // after the game: the side whose offer stands
    std::optional<std::string> rematch_code;  // the rematch's game, once accepted
    bool rematch_starting = false;            // accepted, its room being made

    // `side` made a turn: it may offer and ask again; offers standing lapse.
    void turn_made(Side side);
    // A fresh game, or one replayed from its start.
    void clear() { *this = RoomOffers{}; }
};

// A rated game's category and each seat's rating as it began (from the process's book, or read
// from the store for a game restored at start), and the changes once the store applied them
// with the game's end (RoomCore::rated).
struct SeatRatings {
    std::optional<std::string> category;  // a rated game's only
    std::optional<proto::RatingView> seat[2];
    std::optional<proto::RatingsEv> changes;

    // The seat's rating in the category as `book` has it (a player new to it: 1500?).
    void note(Side s, const std::optional<Player>& player, RatingBook& book);
    // The store applied the game's result (`outcome`): `book` learns the seats' new ratings,
    // and `changes` says what each gained or lost (rated at `now_ms`).
    const proto::RatingsEv& applied(const RateGame::Outcome& outcome,
                                    const std::optional<Player> (&players)[2], RatingBook& book,
                                    std::int64_t now_ms);
    // What the store rates with a rated game's end (finished at `at_ms` with `result`), in the
    // same write: nothing for a casual game, one that never began (`started`: a turn was
    // played), or one without a result (aborted).
    std::optional<RateGame> game(const proto::Result& result, bool started,
                                 const std::optional<Player> (&players)[2],
                                 std::int64_t at_ms) const;
};

// The moments a room waits for (room_time.cpp, room_core.cpp): each one
// passed is acted on by RoomTime::check_deadlines, and Room::schedule arms the room's timer for the
// earliest that can act in the game's status.
struct RoomDeadlines {
    std::optional<TimePoint> start;          // the setups and silver's first turn, until then
    std::optional<TimePoint> away_since[2];  // a seat without any connection
    std::optional<TimePoint> remove;         // a finished game leaves memory then
    std::optional<TimePoint> creator_away;   // open, and the creator has no connection
    bool delisted = false;                   // off the lobby for the creator's absence
    std::optional<TimePoint> live_flush;     // the lobby holds a change of ours back until then
    std::optional<TimePoint> stall;          // the side to move sits past the limit then

    // What the deadlines depend on besides themselves (Room::schedule fills it in).
    struct View {
        proto::GameStatus status = proto::GameStatus::Open;
        bool started = false;                 // a turn of play was made
        bool timed = false;                   // the game has a clock
        std::optional<TimePoint> flag;        // the clock's: the side to move runs out then
        bool present[2] = {false, false};     // each seat has a connection (or is the computer)
        std::optional<TimePoint> spectators;  // the next `spectators` event (Watchers::due)
        std::optional<TimePoint> retry;       // suspended: the next recovery attempt
    };
    // When seat `s`, away, is awarded to its opponent (after the grace and award periods).
    std::optional<TimePoint> award_at(Side s, const RoomLimits& l) const {
        if (!away_since[idx(s)]) return std::nullopt;
        return *away_since[idx(s)] + l.grace + l.award;
    }
    // The seats' connections changed (`present`: each seat has one, or is the computer) at
    // `now`, in a game being played: a seat gone starts its absence (player_left, saying when
    // its opponent may claim the win and when the seat is awarded), one back ends it
    // (player_back). The events to emit, silver's first.
    std::vector<proto::EventBody> presence(const bool (&present)[2], TimePoint now,
                                           const RoomLimits& l);
    // An open game's creator came (`here`) or went at `now`: its absence starts or ends. True
    // when it came back to a game taken off the lobby for it (listed again then).
    bool creator_presence(bool here, TimePoint now);
    // The earliest moment that can act in the room's state (RoomTime::check_deadlines acts on
    // each); nullopt when none can. An away seat's award acts only when its opponent is there
    // or the game is untimed (both away in an untimed game: aborted).
    std::optional<TimePoint> next(const RoomLimits& l, const View& v) const;
};

// The serialized events a room keeps for reconnection (room.cpp: emit, watch): the last `limit`
// of them while the game goes on, kFinished once it is over, none in a summary.
class EventHistory {
  public:
    static constexpr std::size_t kFinished = 8;
    using Event = std::pair<std::int64_t, Msg>;  // (version, the event as sent)
    explicit EventHistory(std::size_t limit) : limit_(limit) {}

    // The newest event; the oldest goes past the limit.
    void add(std::int64_t version, Msg event);
    // Whether every event after `since` is still here (none may have been dropped).
    bool reaches(std::int64_t since) const {
        return !events_.empty() && events_.front().first <= since + 1;
    }
    bool empty() const { return events_.empty(); }
    const std::deque<Event>& events() const { return events_; }
    // The game is over: the shorter limit, and the memory beyond it given back.
    void finished();
    // Everything dropped and its memory given back (a summary, a replay from the start).
    void clear() { std::deque<Event>().swap(events_); }
    // Another history's events (a replayed copy of the game), within this one's limit.
    void take(EventHistory&& other);
    // A setup or turn naming `version` that the game already applied: the first event after
    // `version` that changed the game is `side`'s and `same` says it is this move. Its version,
    // to answer the request with that ack again instead of an error: a request re-sent (by a
    // client after a reconnect, or by a node after a fault) is answered as the first time
    // (PROTOCOL.md "Acks"). Nullopt when that first change was another, or the history does not
    // reach back to it (it holds the journal's tail after a takeover).
    std::optional<std::int64_t> applied_after(
        Side side, std::int64_t version,
        const std::function<bool(const proto::EventBody&)>& same) const;

  private:
    void trim();
    std::deque<Event> events_;
    std::size_t limit_;
};

// A room after a store fault (room_recovery.h; docs/ARCHITECTURE.md "Failures").
struct Suspension {
    bool lost = false;    // the game's creation failed: it exists nowhere
    bool fenced = false;  // another node owns the game now (lost too): "moved" to all
    bool loaded = true;   // the state is the store's (false until a reload worked)
    proto::GameStatus resume_status = proto::GameStatus::Playing;  // the saved status
    std::optional<Side> resume_running;  // whose time runs again at the resumption
    std::int64_t saved_version = 0;      // the last committed version
    std::int64_t suspended_ms = 0;       // epoch ms of the failure
    std::int64_t last_clock_at_ms = 0;   // `at` of the last saved clock reading
    std::optional<TimePoint> since;      // suspended then
    std::optional<TimePoint> retry_at;   // the next recovery attempt
    SteadyClock::duration backoff{};     // before the one after it
    // A failed commit whose fate the store has not told yet (RoomRecovery::suspend): a write
    // reported failed may have been saved (the connection died during COMMIT, fsync failed after
    // the write). Saved, its messages go out as a success's would; not saved, its requester gets
    // store_failed; unreadable, in_doubt (watch again once the game resumes).
    struct Doubt {
        std::vector<RoomOps::Out> out;             // the operation's messages, held
        std::vector<std::function<void()>> after;  // what runs once it is saved
        std::int64_t version = 0;                  // the version it reached
    };
    std::optional<Doubt> doubt;

    // The saved state was read back (RoomRecovery::reloaded): the clock stands until the
    // resumption. The time from its last saved reading to the failure was the mover's (charged);
    // from the failure to the resumption it is nobody's.
    void pause(std::optional<Clock>& clock, TimePoint now);
    // The store is healthy again: the paused mover's time runs again from `now` (`playing`: the
    // game still is).
    void resume(std::optional<Clock>& clock, bool playing, TimePoint now);

    // What everyone is told of a failed commit's fate (Room::settle_doubt): once the store
    // held it (`saved`), its messages go out as they were and each of `watching` (their `msg`
    // unused) gets one notice that the game is paused at saved_version; not held, each requester
    // among `held` gets store_failed with its ref; unknown (nullopt), in_doubt with its ref;
    // every other watcher the notice. One message per connection.
    std::vector<RoomOps::Out> notices(std::optional<bool> saved,
                                      const std::vector<RoomOps::Out>& held,
                                      const std::vector<RoomOps::Out>& watching,
                                      const std::string& code) const;
};

// The server's computer opponent (room_bot.cpp) in the seat opposite the creator
// (RoomCore::bot_side): whether a search runs for its move, the human-like moment it takes over
// one, the search itself (run off the room's strand), and the timer that shows the move at its
// moment.
class RoomBot {
  public:
    using Move = std::variant<Setup, Turn, std::string>;  // a setup, a turn, or why there is none
    RoomBot(const RoomExecutor& ex, std::optional<int> level) : timer(ex), level_(level) {}

    int level() const { return level_.value_or(0); }
    // How long the bot takes over a move in `g` at least, as a person would: a setup 0.8 s, a
    // turn 0.35 s + 0.1 s per level, at most a sixtieth of `left` (its time, when its clock
    // runs), times `pace` (0: at once).
    SteadyClock::duration moment(const Game& g, std::optional<SteadyClock::duration> left,
                                 double pace) const;
    // The bot's move in `g`, whose history is `lines`: the built-in engine at `level` asked over
    // the engine protocol in this process (common/engine_builtin.h), as `trunkfield bot` asks
    // it; `limits` are the clocks as `go` states them. Slow: never on a network thread or the
    // strand.
    static Move search(const engine::GameLines& lines, const Game& g, int level, std::uint64_t seed,
                       const engine::GoLimits& limits);

    bool busy = false;  // a search runs, or its move waits for its moment
    boost::asio::steady_timer timer;

  private:
    std::optional<int> level_;
};

}  // namespace tf::server
