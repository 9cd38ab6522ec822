// A room's game as its journal records it: the seats, the status, the rules state with the
// setups and turns that built it, the versions, each seat's preferences, the offers standing
// between the players and a stalling judgement. Every journaled event changes it in one place,
// apply(): a room applies the events it emits (RoomCore::record) and replays the journal with the
// same function after a restart, a store fault or to expand a summary, so live play and replay
// cannot disagree. It knows nothing of connections, timers, clocks or the store: the room
// (room.h) does. Unit tests: tests/server/game_record_test.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/game.h"
#include "proto/messages.h"
#include "proto/status.h"
#include "server/base/participant.h"
#include "server/room/room_parts.h"
#include "server/store/store.h"

namespace tf::server {

struct RoomParams {
    Variant variant;
    std::optional<proto::TimeControl> time_control;
    bool is_public = true;
    Side creator_side = Side::Silver;
    bool quick_match = false;      // paired by the lobby: never in the open-games list
    std::optional<int> bot_level;  // a computer opponent of this level holds the other seat
    bool rated = false;            // counts for both players' ratings (both are accounts)
    // The creator's client address (server/net/conn_limit.h client_key), kept while the game is
    // open for the open-game limits, and its place under them (PlayerIndex::reserve_open; 0: none).
    std::string creator_address = {};
    std::uint64_t open_ticket = 0;
    // A challenge (proto/PROTOCOL.md "Challenges"): the only account that may take the free
    // seat (it may also decline); empty for any other game.
    std::string invitee_id = {}, invitee_name = {};
    // With bot_level: the computer holds its seat as this house bot's account
    // (server/accounts/house_bots.h), else as "Computer (level N)".
    std::optional<Player> bot_account = {};
    // A pairing (a tournament's): the player of the other seat, seated at creation, so that the
    // game is stored whole in one write, both seats taken and playing.
    std::optional<Player> opponent = {};

    // The params of a stored game (GameRecord::row's inverse, for restore); nullopt with
    // `error` when the row does not say them (an unknown variant, time control or side).
    static std::optional<RoomParams> of_row(const StoredGame& row, std::string& error);
};

// A finished game kept as a summary (RoomRecovery::compact): what the record answers without the
// rules state, which the journal rebuilds.
struct RoomSummary {
    bool active = false;
    proto::Result result;    // result() without the rules state
    std::int64_t turns = 0;  // the turns played
};

// What a player does with an offer: makes it, or answers the opponent's.
enum class OfferAct { Offer, Accept, Decline };

// The record's answer to a request about the offers or the preferences: the event to record,
// or why it is refused (nothing changes); neither when there is nothing to record (the
// preferences already were so; a rematch accepted, which the room makes).
struct Decision {
    std::optional<proto::EventBody> event;
    std::optional<proto::Err> refused;
    std::string why;
    std::optional<std::string> rule;  // a setup or turn the rules refused: their error's code

    Decision() = default;
    Decision(proto::EventBody e) : event(std::move(e)) {}  // NOLINT: an event is a decision
    static Decision refuse(proto::Err code, std::string message) {
        Decision d;
        d.refused = code;
        d.why = std::move(message);
        return d;
    }
};

class GameRecord {
  public:
    using Status = proto::GameStatus;
    // A fresh game of `variant`; seats of a rated game are accounts' (`rated`), and its seats
    // accept takebacks only when their players say so.
    GameRecord(Variant variant, bool rated);

    Status status = Status::Open;
    std::unique_ptr<Game> game;  // null while a summary
    std::optional<Player> seats[2];
    std::optional<Setup> setups[2];
    std::vector<Turn> turns;
    std::int64_t version = 0;        // last event of any kind
    std::int64_t state_version = 0;  // last event that changed the game
    proto::SeatPrefs prefs[2];       // each seat's, for this game
    RoomOffers offers;
    std::optional<Side> stalling;       // judged stalling: the opponent may claim
    bool vacation[2] = {false, false};  // correspondence: the seat's player is on vacation
    bool berserk[2] = {false, false};   // arena games: the seat's player went berserk
    std::int64_t created_ms = 0, finished_ms = 0;  // epoch ms
    RoomSummary summary;

    std::optional<Side> seat_of(const std::string& player_id) const;
    // A turn of play was made (the setups do not count).
    bool started() const { return summary.active ? summary.turns > 0 : !turns.empty(); }
    // The rules' result; an aborted game has no winner and no reason from the rules.
    proto::Result result() const;
    // How many turns a takeback for `side` removes: its last turn and any after it (0: none
    // may be taken back: no turn of its own, or only the game's first turn, which started the
    // clocks).
    int takeback_turns(Side side) const;

    // Requests of a seated player (the room checked the seat and that the game is being played,
    // except for rematch() and preferences(), which check the status themselves), as lichess
    // has them: an offer stands until answered or until its side plays a turn, once per own
    // turn; offering while the opponent's offer stands accepts it. `bot`: the opponent is the
    // server's computer, which accepts takebacks and rematches at once.
    Decision draw(Side side, OfferAct act) const;
    Decision takeback(Side side, OfferAct act, bool bot) const;
    Decision rematch(Side side, bool decline, bool bot) const;
    Decision preferences(Side side, const proto::Preferences& m) const;
    // More time for the opponent of `side` (the room checks that the game is timed).
    Decision give_time(Side side) const;
    // `side` goes berserk (PROTOCOL.md "Tournaments" (Berserk)), where the game `allows` it: once,
    // before its own first turn of play (the room checks that the game is being played).
    Decision go_berserk(Side side, bool allows) const;

    // The change an event makes, checked against the rules and the record: "" once applied,
    // else why it cannot be (nothing changed). The setup and turn are validated by the rules
    // here: a live request is refused with the rules' error instead (setup(), turn()).
    std::string apply(const proto::EventBody& body);
    // A setup or turn of the seat `side` of a game being played, sent at `version` (nullopt:
    // unversioned): the event to emit, the record changed already (the rules check a move by
    // making it), or the refusal, nothing changed: not its move, a version the game moved on
    // from or never reached, the wrong phase, the rules' error (its code as `rule`).
    Decision setup(Side side, const Setup& s, std::optional<std::int64_t> version = {});
    Decision turn(Side side, const Turn& t, std::optional<std::int64_t> version = {});
    // The version an event of this kind takes: counted once it is applied (and emitted).
    void count(const proto::EventBody& body);

    // Rebuilds the record from a stored row and its journal, from the start: every event is
    // applied in version order; `each` sees it (its text is the row's) after it was applied.
    // False, with `error`, when the journal does not replay or disagrees with the row.
    bool replay(const StoredGame& row, const std::vector<JournalRow>& journal,
                const std::function<void(const proto::Event&, const JournalRow&)>& each,
                std::string& error);
    // The game's row as stored after every operation.
    StoredGame row(const std::string& code, const RoomParams& params) const;

    // A finished game's rules state, setups and turns go; result() and started() answer from
    // the summary (RoomRecovery::compact).
    void compact();
    // The whole record again, from `full` (the same game replayed).
    void expand(GameRecord&& full);

  private:
    struct Replayer;
    Variant variant_;
    bool rated_;
    // Whether `side` may move now with a request sent at `version` (a refusal, or nothing).
    std::optional<Decision> not_movable(Side side, std::optional<std::int64_t> version) const;
    // A setup or turn the rules accept, made (a live request's checks are setup() and turn()'s;
    // a replay's the Replayer's); the rules' error otherwise, nothing changed.
    std::optional<RuleError> make_setup(Side side, const Setup& s);
    std::optional<RuleError> make_turn(Side side, const Turn& t);
    // Removes the last `n` turns and replays the rest into the rules state.
    void drop_turns(int n);
    std::string end(Side loser, EndReason why);
};

}  // namespace tf::server
