// One game as a client sees it, rebuilt from the server's snapshot and events with the rules
// library: the position, version, status, seats and their presence, clocks, draw offer, the
// spectator count, the result, the turn list with what each turn captured, the chat, and the
// rematch after the game. The terminal client, `trunkfield bot`, the integration tests, the load
// generator and (through the WebAssembly bindings) the browser read server messages through it,
// so the protocol's meaning is implemented once on the client side.
//
// The mirror never trusts an event blindly: a setup or turn that does not apply to its copy of
// the game, or a version that skips some, is reported (Diverged, Gap) for the client to resync
// with a `watch` (proto/PROTOCOL.md "Versions, acks, rollback and reconnection").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/game.h"
#include "proto/messages.h"

namespace tf::client {

class GameMirror {
  public:
    enum class Update {
        Ignored,   // not this game's, or a version already applied (but for rematch events)
        Snapshot,  // everything was replaced
        Event,     // one event applied: last_event()
        Gap,       // events were missed: watch again with since_version = version()
        Diverged,  // an event does not apply to this copy: watch again without since_version
    };
    struct TurnEntry {
        Side side;
        Turn turn;
        std::vector<proto::Captured> captures;
    };

    // `player_id`: whose seat is "mine" (my_side()); empty for a spectator's mirror.
    explicit GameMirror(std::string player_id = {});

    // A message for some game: snapshots and events of this mirror's game are applied (the
    // first snapshot chooses the game); anything else is Ignored.
    Update apply(const proto::ServerMsg& m);
    Update apply(const proto::SnapshotMsg& s);
    Update apply(const proto::Event& e);

    bool has_game() const { return version_ >= 0; }
    const std::string& code() const { return code_; }
    std::int64_t version() const { return version_; }
    // The version of the last event that changed the game (what a setup or turn must not be
    // older than).
    std::int64_t state_version() const { return state_version_; }
    proto::GameStatus status() const { return status_; }
    const Game& game() const { return game_; }
    const Variant& variant() const { return game_.variant(); }
    const std::optional<proto::TimeControl>& time_control() const { return time_control_; }
    std::optional<Side> my_side() const { return my_side_; }
    const std::optional<proto::Seat>& seat(Side s) const { return seats_[idx(s)]; }
    const std::optional<proto::ClockReading>& clocks() const { return clocks_; }
    std::optional<Side> draw_offer() const { return draw_offer_; }
    // The side whose takeback request stands, and each seat's preferences (takebacks, time).
    std::optional<Side> takeback_offer() const { return takeback_offer_; }
    const proto::SeatPrefs& preferences(Side s) const { return prefs_[idx(s)]; }
    // Whether both seats accept takebacks, and how many turns a takeback for `s` would remove
    // now (0: none; the server's rule, PROTOCOL.md "Takebacks and more time").
    // The side judged stalling: its opponent may claim the win or a draw.
    std::optional<Side> stalling() const { return stalling_; }
    // Correspondence games: whether the side's player is on vacation.
    bool on_vacation(Side s) const { return vacation_[idx(s)]; }
    // Arena games: whether the side's player went berserk (PROTOCOL.md "Tournaments" (Berserk)).
    bool berserk(Side s) const { return berserk_[idx(s)]; }
    bool takebacks_on() const { return prefs_[0].takeback && prefs_[1].takeback; }
    int takeback_turns(Side s) const;
    int spectators() const { return spectators_; }
    // Set once the game is over or aborted (status over/aborted).
    const std::optional<proto::Result>& result() const { return result_; }
    bool finished() const { return proto::finished(status_); }
    const std::optional<Setup>& setup(Side s) const { return setups_[idx(s)]; }
    // The position string a game from a position started at (no setups then).
    const std::optional<std::string>& start_position() const { return position_; }
    const std::vector<TurnEntry>& turns() const { return turns_; }
    // The event the last apply() applied (Update::Event).
    const std::optional<proto::Event>& last_event() const { return last_; }
    // The chat lines this client may read, oldest first: the snapshot's (the last ones before
    // it), then each line as it comes, both rooms; the last kChatKept of them.
    static constexpr std::size_t kChatKept = 300;
    const std::vector<proto::ChatEv>& chat() const { return chat_; }
    // After the game: the side whose rematch offer stands, the side that declined the last
    // offer, and the rematch's game once made. A snapshot says nothing of them, so they outlive
    // the snapshots of the same game.
    std::optional<Side> rematch_offer() const { return rematch_offer_; }
    std::optional<Side> rematch_declined() const { return rematch_declined_; }
    const std::optional<std::string>& rematch_code() const { return rematch_code_; }
    // Whether the game counts for both players' ratings (the snapshot says; seats then carry
    // each player's rating as the game began, but a seat taken by a join event has none until
    // the next snapshot: the join event carries no rating).
    bool rated() const { return rated_; }
    // A finished rated game's rating changes, once the server applied them.
    const std::optional<proto::RatingsEv>& ratings() const { return ratings_; }
    // Whether it is `s`'s move in a game being played.
    bool to_move(Side s) const {
        return status_ == proto::GameStatus::Playing && !game_.over() && game_.to_move() == s;
    }

  private:
    struct Applier;
    std::string player_id_;
    std::string code_;
    std::int64_t version_ = -1, state_version_ = 0;
    proto::GameStatus status_ = proto::GameStatus::Open;
    Game game_{Variant{}};
    std::optional<proto::TimeControl> time_control_;
    std::optional<Side> my_side_;
    std::optional<proto::Seat> seats_[2];
    std::optional<proto::ClockReading> clocks_;
    std::optional<Side> draw_offer_;
    std::optional<Side> takeback_offer_;
    std::optional<Side> stalling_;
    bool vacation_[2] = {false, false};
    bool berserk_[2] = {false, false};
    proto::SeatPrefs prefs_[2];
    // Replays the setups and turns_ into game_ (after a takeback).
    bool rebuild();
    int spectators_ = 0;
    bool aborted_ = false;  // an abort event came: game_over then has no rules result
    std::optional<proto::Result> result_;
    std::optional<Setup> setups_[2];
    std::optional<std::string> position_;  // a game from a position string: where it started
    std::vector<TurnEntry> turns_;
    std::optional<proto::Event> last_;
    std::vector<proto::ChatEv> chat_;
    std::optional<Side> rematch_offer_, rematch_declined_;
    std::optional<std::string> rematch_code_;
    std::optional<proto::RatingsEv> ratings_;
    bool rated_ = false;
};

}  // namespace tf::client
