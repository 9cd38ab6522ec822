// The closed set of protocol messages (proto/PROTOCOL.md): one struct per message, both ways.
// Client -> server messages are parsed strictly by parse_client() and serialized by to_json();
// server -> client messages (events typed per kind) are serialized by to_text() and parsed back
// by parse_server().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/game.h"
#include "common/turn.h"
#include "common/types.h"
#include "proto/errors.h"
#include "proto/ratings.h"
#include "proto/status.h"

namespace tf::proto {

using Json = nlohmann::json;

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxMessageBytes = 16 * 1024;
inline constexpr std::int64_t kMaxLagMs = 60000;    // a turn's lag_ms
inline constexpr std::int64_t kGiveTimeMs = 15000;  // give_time: the time a player gives
// Text limits count characters (Unicode code points), as JSON Schema's maxLength does.
inline constexpr std::size_t kMaxChatChars = 500;
inline constexpr std::size_t kMaxNameChars = 32;
// Accounts: usernames of 3 to 20 letters, digits, '_' and '-'; passwords of 8 to 128 characters.
inline constexpr std::size_t kMinUsernameChars = 3, kMaxUsernameChars = 20;
inline constexpr std::size_t kMinPasswordChars = 8, kMaxPasswordChars = 128;
// The server's message credits per connection by default (PROTOCOL.md "Limits"; trunkfield-server
// --rate and --burst, server/base/config.h): refilled per second, and the bucket's size. Clients
// pace themselves under them (client/lib/pacer.h; tests/client/pacer_test.cpp checks they agree).
inline constexpr double kDefaultCreditRate = 20;
inline constexpr double kDefaultCreditBurst = 40;

// Fischer (initial_ms > 0, increment_ms) or, when days_per_move > 0, a correspondence game:
// a clock per move that resets to that many days after each turn (PROTOCOL.md "Time").
struct TimeControl {
    std::int64_t initial_ms = 0;
    std::int64_t increment_ms = 0;
    int days_per_move = 0;  // one of kCorrespondenceDays; 0: Fischer
    // An arena's game that allows berserk (PROTOCOL.md "Tournaments" (Berserk)): set by the
    // tournament director only; a create_game's time_control cannot ask for it.
    bool berserk = false;
    bool correspondence() const { return days_per_move > 0; }
    friend bool operator==(const TimeControl&, const TimeControl&) = default;
};

inline constexpr int kCorrespondenceDays[] = {1, 2, 3, 5, 7, 10, 14};
inline constexpr bool correspondence_days(std::int64_t d) {
    for (int x : kCorrespondenceDays)
        if (x == d) return true;
    return false;
}

enum class ColorChoice : unsigned char { Silver, Bronze, Random };

// ---- client -> server ----
struct Hello {
    int version = 0;
    std::optional<std::string> name;
    std::optional<std::string> token;
};
struct CreateGame {
    Variant variant;
    std::optional<TimeControl> time_control;  // nullopt: untimed
    ColorChoice color = ColorChoice::Random;
    bool is_public = true;
    std::optional<int> bot;  // 1..5: the server seats a computer opponent of that level
    bool rated = false;      // counts for both players' ratings (two accounts, a rated category)
    // The request's id, echoed by game_created; a repeat with the same ref on the same connection
    // within a few seconds is the same request (a double click makes one game).
    std::optional<std::string> ref = std::nullopt;
    // A challenge (PROTOCOL.md "Challenges"): the username of the only account that may join;
    // the game is private.
    std::optional<std::string> to = std::nullopt;
};
struct JoinGame {
    std::string code;
};
struct CancelGame {
    std::string code;
};
struct ListGames {};
struct Watch {
    std::string code;
    std::optional<std::int64_t> since_version;
};
struct SetupMsg {
    std::string game;
    Setup setup;
    std::optional<std::int64_t> version;  // the last version the client saw
    std::optional<std::string> ref;
};
struct TurnMsg {
    std::string game;
    Turn turn;
    std::optional<std::int64_t> version;
    std::optional<std::string> ref;
    // The mover's network round trip in ms as the client measured it (ping -> pong), for lag
    // compensation (PROTOCOL.md "Lag"); the server uses its own measure on WebSocket.
    std::optional<std::int64_t> lag_ms;
};
// A ref on resign, chat and the draw messages asks for an `ack` once the act is recorded (the
// HTTP API waits for it, PROTOCOL.md "HTTP API for programs"); without one nothing is acked.
struct Resign {
    std::string game;
    std::optional<std::string> ref = std::nullopt;
};
struct Chat {
    std::string game;
    std::string text;
    std::optional<std::string> ref = std::nullopt;
};
struct Ping {};
// Quick match: pair with another waiting player asking for the same time control and variant.
struct QuickMatch {
    Variant variant;
    std::optional<TimeControl> time_control;  // nullopt: untimed
    bool rated = false;                       // the rated pool: accounts only, paired by rating
};
struct QuickMatchCancel {};
struct ListLive {};  // subscribe to the list of live games
// Draw offers (an offer lapses with the offerer's next turn) and claiming an abandoned game.
struct DrawOffer {
    std::string game;
    std::optional<std::string> ref = std::nullopt;
};
struct DrawAccept {
    std::string game;
    std::optional<std::string> ref = std::nullopt;
};
struct DrawDecline {
    std::string game;
    std::optional<std::string> ref = std::nullopt;
};
struct ClaimWin {
    std::string game;
};
// A draw claimed from an opponent who is stalling (PROTOCOL.md "Stalling").
struct ClaimDraw {
    std::string game;
};
// Takebacks (PROTOCOL.md "Takebacks and more time"): a player asks to take back their last
// turn (and the opponent's reply to it, if made); the opponent accepts or declines.
struct TakebackOffer {
    std::string game;
};
struct TakebackAccept {
    std::string game;
};
struct TakebackDecline {
    std::string game;
};
// How many turns a takeback asked by `side` removes after `played` turns of play: its last turn
// and any after it (silver plays first); 0 when none may go (no turn of its own, or only the
// game's first turn, which started the clocks). The server's rule, which clients mirror.
int takeback_turns(std::int64_t played, Side side);
// Gives the opponent 15 more seconds on their clock.
struct GiveTime {
    std::string game;
};
// Before one's first turn of play in an arena game that allows it: halves one's own clock (less
// half the initial time) and drops one's increment, for a point more in a win.
struct Berserk {
    std::string game;
};
// A seated player's preferences for this game: whether they accept takebacks, and whether they
// accept time given by the opponent. Absent fields stay as they are.
struct Preferences {
    std::string game;
    std::optional<bool> takeback, more_time;
};
// Leave a game without a result while no turn of play has been made (the setups).
struct Abort {
    std::string game;
};
// After a game: offer a rematch (colours swapped, same settings); sent while the opponent's
// offer stands it accepts. Declining answers the opponent's offer.
struct Rematch {
    std::string game;
};
struct RematchDecline {
    std::string game;
};
// The challenged player declines a challenge (PROTOCOL.md "Challenges"), with one of
// kDeclineReasons.
struct DeclineChallenge {
    std::string game;
    std::string reason = "generic";
};
inline constexpr const char* kDeclineReasons[] = {"generic",      "later",   "too_fast", "too_slow",
                                                  "time_control", "rated",   "casual",   "variant",
                                                  "no_bot",       "only_bot"};
// Accounts (PROTOCOL.md "Accounts"). Each is answered by a `welcome` saying who the connection
// is now (with the request's ref), or an error.
struct Register {  // turns this connection's guest into an account: it keeps its games
    std::string username, password;
    std::optional<std::string> ref;
};
struct Login {
    std::string username, password;
    std::optional<std::string> ref;
};
struct Logout {  // this token, or every token of the account; the connection becomes a new guest
    bool everywhere = false;
    std::optional<std::string> ref;
};
struct ChangePassword {  // every other token of the account is revoked
    std::string password, new_password;
    std::optional<std::string> ref;
};

using ClientMsg =
    std::variant<Hello, CreateGame, JoinGame, CancelGame, ListGames, Watch, SetupMsg, TurnMsg,
                 Resign, Chat, Ping, QuickMatch, QuickMatchCancel, ListLive, DrawOffer, DrawAccept,
                 DrawDecline, ClaimWin, Abort, Rematch, RematchDecline, Register, Login, Logout,
                 ChangePassword, TakebackOffer, TakebackAccept, TakebackDecline, GiveTime,
                 Preferences, ClaimDraw, DeclineChallenge, Berserk>;
// The game a request is about (join, cancel, watch, play, chat, draw, claim, rematch), or
// nullopt for the lobby's and the connection's own requests.
std::optional<std::string> game_of(const ClientMsg& m);
// Whether `s` is a well-formed username (length and characters; reserved names are the
// server's to refuse).
bool is_username(std::string_view s);

// A game code as the server makes them (6 characters of 23456789abcdefghjkmnpqrstuvwxyz) or
// might later: 1 to 16 lowercase letters and digits. Every reader of a code checks it so.
bool is_game_code(std::string_view s);
// A code as a person may type it: codes are case-insensitive ("K3V9QA" is "k3v9qa"). The code
// in lowercase when that is well-formed (is_game_code), else nullopt.
std::optional<std::string> game_code(std::string_view s);

// Parses one client message; the error is bad_json, unknown_type or bad_message.
std::variant<ClientMsg, Error> parse_client(std::string_view text);
std::variant<ClientMsg, Error> parse_client(const Json& j);

// ---- server -> client ----
// One struct per message and per event kind; to_text() serializes each (serialize_server.cpp,
// compact JSON with its keys in sorted order, as nlohmann::json's dump() writes them), and
// parse_server() reads any of them back (parse_server.cpp).

struct PlayerRef {
    std::string id, name;
    bool bot = false;  // a bot account (PROTOCOL.md "Bot accounts"); sent only when true
    friend bool operator==(const PlayerRef&, const PlayerRef&) = default;
};
// A seat's absence: from claim_at the opponent may claim the win, at award_at it is awarded
// (server epoch ms).
struct Away {
    std::int64_t claim_at = 0, award_at = 0;
    friend bool operator==(const Away&, const Away&) = default;
};
struct Seat {
    PlayerRef player;
    std::optional<Away> away;  // nullopt while the seat has a connection
    std::optional<RatingView> rating =
        std::nullopt;  // in a rated game: the player's rating as the game began
    friend bool operator==(const Seat&, const Seat&) = default;
};
// Each side's time left at the instant `at` (server epoch ms), and whose time is running.
struct ClockReading {
    std::int64_t silver_ms = 0, bronze_ms = 0;
    std::optional<Side> running;
    std::int64_t at = 0;
    friend bool operator==(const ClockReading&, const ClockReading&) = default;
};

// Why a game ended: the rules' reasons (tf::EndReason), or aborted (no result).
#define TF_RESULT_REASONS(X)  \
    X(Trunks, "trunks")       \
    X(Herd, "herd")           \
    X(Quiet, "quiet")         \
    X(Resign, "resign")       \
    X(Time, "time")           \
    X(Agreement, "agreement") \
    X(Abandon, "abandon")     \
    X(Stalling, "stalling")   \
    X(Aborted, "aborted")
enum class ResultReason : unsigned char {
#define X(id, name) id,
    TF_RESULT_REASONS(X)
#undef X
};
std::string_view reason_name(ResultReason r);
enum class Winner : unsigned char { None, Silver, Bronze, Draw };

// {"over","reason","score","winner","to_move"}: the rules library's result of a game, or an
// aborted game's (no winner, reason aborted).
struct Result {
    bool over = false;
    std::optional<ResultReason> reason;  // set once over
    int score[2] = {0, 0};               // silver, bronze
    Winner winner = Winner::None;        // None until over, and for an aborted game
    std::optional<Side> to_move;         // while not over
    friend bool operator==(const Result&, const Result&) = default;
};
Result result_of(const Game& g);
Result aborted_result(const Game& g);
// The game_over payload's JSON (also the store's `result` column), and back.
std::string to_text(const Result& r);
std::optional<Result> parse_result(const Json& j);

// The record part of a snapshot: spec §6 plus the time control.
struct GameRecord {
    Variant variant;
    std::optional<TimeControl> time_control;
    std::optional<Setup> setup[2];  // silver, bronze
    std::vector<Turn> turns;
    // A game from a position string instead of setups (docs/RULES.md §9.1): the web client's
    // games on the device played on from the analysis board; no server game has one yet.
    std::optional<std::string> position = std::nullopt;
    friend bool operator==(const GameRecord&, const GameRecord&) = default;
};

// An elephant a turn captured, where it stood.
struct Captured {
    Side side = Side::Silver;
    Cell cell;
    friend bool operator==(const Captured&, const Captured&) = default;
};
// The elephants `t` captured, from the game before and after it: every elephant of `before`
// that is gone from its cell in `after`, but for the mover (which moved), and the mover when
// its landing cell in the field is empty (it landed on a crossing that caught it).
std::vector<Captured> captures_of(const Game& before, const Game& after, const Turn& t);

enum class AbortReason : unsigned char { NoStart, Abandoned, Player };
std::string_view abort_reason_name(AbortReason r);

// Event payloads, one per kind (PROTOCOL.md "event").
struct JoinEv {
    Side side = Side::Silver;
    PlayerRef player;
    friend bool operator==(const JoinEv&, const JoinEv&) = default;
};
struct SetupEv {
    Side side = Side::Silver;
    Setup setup;
    friend bool operator==(const SetupEv&, const SetupEv&) = default;
};
struct TurnEv {
    Side side = Side::Silver;
    Turn turn;
    std::vector<Captured> captures;  // absent in events stored before protocol 1.1: empty
    friend bool operator==(const TurnEv&, const TurnEv&) = default;
};
struct ResignEv {
    Side side = Side::Silver;
    friend bool operator==(const ResignEv&, const ResignEv&) = default;
};
struct GameOverEv {
    Result result;
    friend bool operator==(const GameOverEv&, const GameOverEv&) = default;
};
// Players talk in the players' room, which everyone watching reads (versioned, journaled);
// spectators in a room of their own that only spectators read (not versioned, not stored).
enum class ChatRoom : unsigned char { Players, Spectators };
// A players' chat line this connection does not see (PROTOCOL.md "Follow and block"): its
// version, nothing else. Made by the server's screening of what it sends, never journaled.
struct HiddenEv {
    friend bool operator==(const HiddenEv&, const HiddenEv&) = default;
};
struct ChatEv {
    PlayerRef from;
    std::string text;
    ChatRoom room = ChatRoom::Players;
    // Seen by its author alone (a moderator's shadow restriction, PROTOCOL.md "Reports and
    // moderation"): the server shows it to nobody else, and never sends this flag.
    bool hidden = false;
    friend bool operator==(const ChatEv&, const ChatEv&) = default;
};
struct CancelEv {
    // A challenge declined by the challenged player: the reason (kDeclineReasons).
    std::optional<std::string> declined = std::nullopt;
    friend bool operator==(const CancelEv&, const CancelEv&) = default;
};
struct DrawOfferEv {  // the offerer
    Side side = Side::Silver;
    friend bool operator==(const DrawOfferEv&, const DrawOfferEv&) = default;
};
struct DrawDeclineEv {  // the decliner
    Side side = Side::Silver;
    friend bool operator==(const DrawDeclineEv&, const DrawDeclineEv&) = default;
};
struct DrawAcceptEv {  // the accepter
    Side side = Side::Silver;
    friend bool operator==(const DrawAcceptEv&, const DrawAcceptEv&) = default;
};
struct TakebackOfferEv {  // the side asking to take back its last turn
    Side side = Side::Silver;
    friend bool operator==(const TakebackOfferEv&, const TakebackOfferEv&) = default;
};
struct TakebackDeclineEv {  // the decliner
    Side side = Side::Silver;
    friend bool operator==(const TakebackDeclineEv&, const TakebackDeclineEv&) = default;
};
// Accepted: `side`'s last turn and any turn after it (`turns`, 1 or 2) are taken back; `side` is
// to move again. The clocks keep the times they had (the event's reading).
struct TakebackEv {
    Side side = Side::Silver;
    int turns = 1;
    friend bool operator==(const TakebackEv&, const TakebackEv&) = default;
};
struct BerserkEv {  // `side` went berserk: half its initial time gone, no increment
    Side side = Side::Silver;
    friend bool operator==(const BerserkEv&, const BerserkEv&) = default;
};
struct TimeGivenEv {  // `side` gave its opponent `ms` more time
    Side side = Side::Silver;
    std::int64_t ms = 0;
    friend bool operator==(const TimeGivenEv&, const TimeGivenEv&) = default;
};
// A seat's preferences for this game (see proto::Preferences).
struct SeatPrefs {
    bool takeback = true, more_time = true;
    friend bool operator==(const SeatPrefs&, const SeatPrefs&) = default;
};
struct PreferencesEv {
    Side side = Side::Silver;
    SeatPrefs prefs;
    friend bool operator==(const PreferencesEv&, const PreferencesEv&) = default;
};
// `side` sits on its move in a position the server's bot judges lost, past the stalling limit:
// its opponent may claim the win or a draw (PROTOCOL.md "Stalling").
struct StallingEv {
    Side side = Side::Silver;
    friend bool operator==(const StallingEv&, const StallingEv&) = default;
};
struct StallClaimEv {  // `side` claimed the win (or a draw) from its stalling opponent
    Side side = Side::Silver;
    bool draw = false;
    friend bool operator==(const StallClaimEv&, const StallClaimEv&) = default;
};
// Correspondence games: `side`'s player went on vacation (`on`) or came back. While on vacation,
// that side's time does not run on its move (PROTOCOL.md "Vacation").
struct VacationEv {
    Side side = Side::Silver;
    bool on = false;
    friend bool operator==(const VacationEv&, const VacationEv&) = default;
};
struct TimeoutEv {  // the side whose time ran out
    Side side = Side::Silver;
    friend bool operator==(const TimeoutEv&, const TimeoutEv&) = default;
};
struct PlayerLeftEv {
    Side side = Side::Silver;
    std::int64_t claim_at = 0, award_at = 0;
    friend bool operator==(const PlayerLeftEv&, const PlayerLeftEv&) = default;
};
struct PlayerBackEv {
    Side side = Side::Silver;
    friend bool operator==(const PlayerBackEv&, const PlayerBackEv&) = default;
};
struct AbandonEv {  // the side that lost by abandonment
    Side side = Side::Silver;
    bool claimed = false;
    friend bool operator==(const AbandonEv&, const AbandonEv&) = default;
};
struct AbortEv {
    AbortReason reason = AbortReason::NoStart;
    std::optional<Side> side;  // reason Player: who left
    friend bool operator==(const AbortEv&, const AbortEv&) = default;
};
struct SpectatorsEv {  // not versioned: carries the game's version without adding one
    int count = 0;
    friend bool operator==(const SpectatorsEv&, const SpectatorsEv&) = default;
};
// A rated game's rating changes, once the store has applied them with the game's end (not
// versioned: derived from the ratings table, never journaled).
struct RatingChange {
    int before = 0;  // rounded, as shown before the game
    RatingView after;
    friend bool operator==(const RatingChange&, const RatingChange&) = default;
};
struct RatingsEv {
    std::string category;
    std::optional<RatingChange> change[2];  // silver, bronze
    friend bool operator==(const RatingsEv&, const RatingsEv&) = default;
};
struct RematchOfferEv {  // after the game: the side offering a rematch
    Side side = Side::Silver;
    friend bool operator==(const RematchOfferEv&, const RematchOfferEv&) = default;
};
struct RematchDeclineEv {  // the side declining it
    Side side = Side::Silver;
    friend bool operator==(const RematchDeclineEv&, const RematchDeclineEv&) = default;
};
struct RematchEv {  // the rematch was accepted: its game
    std::string code;
    friend bool operator==(const RematchEv&, const RematchEv&) = default;
};
// A kind this build does not know (from a newer server): its version still counts.
struct UnknownEv {
    std::string kind;
    friend bool operator==(const UnknownEv&, const UnknownEv&) = default;
};

// Every event kind, with its name on the wire; schema/event.json lists the same names (a test
// checks both ways).
#define TF_EVENT_KINDS(X)                    \
    X(JoinEv, "join")                        \
    X(SetupEv, "setup")                      \
    X(TurnEv, "turn")                        \
    X(ResignEv, "resign")                    \
    X(DrawOfferEv, "draw_offer")             \
    X(DrawDeclineEv, "draw_decline")         \
    X(DrawAcceptEv, "draw_accept")           \
    X(TimeoutEv, "timeout")                  \
    X(PlayerBackEv, "player_back")           \
    X(PlayerLeftEv, "player_left")           \
    X(AbandonEv, "abandon")                  \
    X(AbortEv, "abort")                      \
    X(GameOverEv, "game_over")               \
    X(ChatEv, "chat")                        \
    X(CancelEv, "cancel")                    \
    X(SpectatorsEv, "spectators")            \
    X(RematchOfferEv, "rematch_offer")       \
    X(RematchDeclineEv, "rematch_decline")   \
    X(RematchEv, "rematch")                  \
    X(RatingsEv, "ratings")                  \
    X(TakebackOfferEv, "takeback_offer")     \
    X(TakebackDeclineEv, "takeback_decline") \
    X(TakebackEv, "takeback")                \
    X(TimeGivenEv, "time_given")             \
    X(PreferencesEv, "preferences")          \
    X(StallingEv, "stalling")                \
    X(StallClaimEv, "stall_claim")           \
    X(VacationEv, "vacation")                \
    X(BerserkEv, "berserk")                  \
    X(HiddenEv, "hidden")

using EventBody = std::variant<
#define X(type, name) type,
    TF_EVENT_KINDS(X)
#undef X
        UnknownEv>;
inline constexpr std::string_view kEventKinds[] = {
#define X(type, name) name,
    TF_EVENT_KINDS(X)
#undef X
};
// The wire name of the body's kind.
std::string_view event_kind(const EventBody& b);
// Whether an event of this kind changes the game (a setup or turn sent with an older version
// than the last such event is stale_version). Chat, draw offers and declines, presence and the
// spectator count do not.
bool changes_game(const EventBody& b);
// Whether the event takes a version of its own: all but the spectator count and spectators'
// chat, which carry the game's current version without adding one (and are never stored).
bool versioned(const EventBody& b);

struct Event {
    std::string game;
    std::int64_t version = 0;
    EventBody body;
    std::optional<ClockReading> clocks;  // nullopt: an untimed game
    friend bool operator==(const Event&, const Event&) = default;
};

// An account's name and ratings (the categories it has played), in `welcome`.
struct AccountInfo {
    std::string username;
    std::map<std::string, RatingView> ratings;
    std::vector<std::string> roles = {};  // given by the operator: "moderator"
    friend bool operator==(const AccountInfo&, const AccountInfo&) = default;
};
struct Welcome {
    std::string player_id, token, name;
    std::vector<std::string> games;  // unfinished games where this player holds a seat
    std::vector<int> versions = {kProtocolVersion};
    std::optional<AccountInfo> account = std::nullopt;  // nullopt: a guest
    std::optional<std::string> ref = std::nullopt;      // the account request this answers
    friend bool operator==(const Welcome&, const Welcome&) = default;
};
struct GameCreated {
    std::string code, link;
    std::optional<std::string> ref = std::nullopt;
    friend bool operator==(const GameCreated&, const GameCreated&) = default;
};
struct SnapshotMsg {
    std::string game;
    std::int64_t version = 0;
    GameStatus status = GameStatus::Open;
    Game state{Variant{}};  // serialized as tf::state_to_json
    GameRecord record;
    std::optional<Seat> players[2];  // silver, bronze; nullopt: the seat is free
    std::optional<ClockReading> clocks;
    int spectators = 0;
    std::optional<Side> draw_offer;      // the side whose draw offer stands
    std::optional<Side> takeback_offer;  // the side whose takeback request stands
    std::optional<Side> stalling;        // the side stalling (its opponent may claim)
    SeatPrefs preferences[2];            // silver's, bronze's
    bool is_public = true;               // listed (open, live) or joined by code only
    bool rated = false;
    std::optional<RatingsEv> ratings =
        std::nullopt;  // a finished rated game's changes, once applied
    // The last chat lines the recipient may read (players': everyone; spectators': spectators).
    std::vector<ChatEv> chat;
    // A challenge: the only player who may take the free seat (PROTOCOL.md "Challenges").
    std::optional<PlayerRef> invitee = std::nullopt;
    // Correspondence games: the sides whose players are on vacation (silver, bronze).
    bool vacation[2] = {false, false};
    // Arena games: the sides that went berserk (silver, bronze).
    bool berserk[2] = {false, false};
};
struct Ack {
    std::optional<std::string> ref;
    std::int64_t version = 0;
    friend bool operator==(const Ack&, const Ack&) = default;
};
struct ErrorMsg {
    Err code;
    std::string message;
    std::optional<std::string> ref;
    std::optional<std::int64_t> version;
    std::optional<std::string> rule;  // the rules library's code for illegal setups/turns
    std::optional<std::string> game = std::nullopt;  // the game it is about, for a game's errors
    friend bool operator==(const ErrorMsg&, const ErrorMsg&) = default;
};
// An open public game in the lobby.
struct OpenGame {
    std::string code;
    Variant variant;
    std::optional<TimeControl> time_control;
    PlayerRef creator;
    Side creator_side = Side::Silver;
    bool rated = false;
    std::optional<RatingView> creator_rating = std::nullopt;  // a rated game's creator
    friend bool operator==(const OpenGame&, const OpenGame&) = default;
};
struct Lobby {
    std::vector<OpenGame> games;
    friend bool operator==(const Lobby&, const Lobby&) = default;
};
struct Pong {
    friend bool operator==(const Pong&, const Pong&) = default;
};
struct Shutdown {  // the server is stopping (SIGTERM): reconnect after retry_after_ms
    std::string message;
    std::int64_t retry_after_ms = 0;
    friend bool operator==(const Shutdown&, const Shutdown&) = default;
};
struct QuickMatchWaiting {  // the quick-match request is queued (or replaced the previous one)
    Variant variant;
    std::optional<TimeControl> time_control;
    bool rated = false;
    friend bool operator==(const QuickMatchWaiting&, const QuickMatchWaiting&) = default;
};
struct QuickMatchCancelled {
    friend bool operator==(const QuickMatchCancelled&, const QuickMatchCancelled&) = default;
};
struct Matched {  // paired by quick match; the game's snapshot follows
    std::string code, link;
    Side side = Side::Silver;
    friend bool operator==(const Matched&, const Matched&) = default;
};
// A public game being played, in the live list.
struct LiveGame {
    std::string code;
    Variant variant;
    std::optional<TimeControl> time_control;
    std::optional<PlayerRef> players[2];
    int turns = 0;
    Side to_move = Side::Silver;
    int score[2] = {0, 0};
    int spectators = 0;
    GameStatus status = GameStatus::Playing;  // playing or suspended
    bool away[2] = {false, false};            // a seat without any connection
    bool rated = false;
    std::optional<RatingView> ratings[2] = {};  // a rated game's players, as it began
    friend bool operator==(const LiveGame&, const LiveGame&) = default;
};
struct Live {
    std::vector<LiveGame> games;
    friend bool operator==(const Live&, const Live&) = default;
};
// A player's notification (PROTOCOL.md "Notifications"), pushed live: its stored fields ("id",
// "kind", "at", "read" and the kind's own), as the notification list gives them.
struct Notification {
    Json item;
    friend bool operator==(const Notification&, const Notification&) = default;
};

using ServerMsg =
    std::variant<Welcome, GameCreated, SnapshotMsg, Event, Ack, ErrorMsg, Lobby, Pong, Shutdown,
                 QuickMatchWaiting, QuickMatchCancelled, Matched, Live, Notification>;

// Parses one server message; the error is bad_json, unknown_type or bad_message.
std::variant<ServerMsg, Error> parse_server(std::string_view text);
inline std::variant<ServerMsg, Error> parse_server(const std::string& text) {
    return parse_server(std::string_view(text));
}
std::variant<ServerMsg, Error> parse_server(const Json& j);

// One serializer per server message: compact JSON, keys in sorted order.
std::string to_text(const Welcome& m);
std::string to_text(const GameCreated& m);
std::string to_text(const SnapshotMsg& m);
std::string to_text(const Event& m);
std::string to_text(const Ack& m);
std::string to_text(const ErrorMsg& m);
std::string to_text(const Lobby& m);
std::string to_text(const Pong& m);
std::string to_text(const Shutdown& m);
std::string to_text(const QuickMatchWaiting& m);
std::string to_text(const QuickMatchCancelled& m);
std::string to_text(const Matched& m);
std::string to_text(const Live& m);
std::string to_text(const Notification& m);
std::string to_text(const ServerMsg& m);

Json to_json(const TimeControl& t);
Json to_json(const Hello& m);
Json to_json(const CreateGame& m);
Json to_json(const JoinGame& m);
Json to_json(const CancelGame& m);
Json to_json(const ListGames& m);
Json to_json(const Watch& m);
Json to_json(const SetupMsg& m);
Json to_json(const TurnMsg& m);
Json to_json(const Resign& m);
Json to_json(const Chat& m);
Json to_json(const Ping& m);
Json to_json(const QuickMatch& m);
Json to_json(const QuickMatchCancel& m);
Json to_json(const ListLive& m);
Json to_json(const DrawOffer& m);
Json to_json(const DrawAccept& m);
Json to_json(const DrawDecline& m);
Json to_json(const ClaimWin& m);
Json to_json(const Abort& m);
Json to_json(const TakebackOffer& m);
Json to_json(const TakebackAccept& m);
Json to_json(const TakebackDecline& m);
Json to_json(const GiveTime& m);
Json to_json(const Berserk& m);
Json to_json(const Preferences& m);
Json to_json(const ClaimDraw& m);
Json to_json(const Rematch& m);
Json to_json(const RematchDecline& m);
Json to_json(const DeclineChallenge& m);
Json to_json(const Register& m);
Json to_json(const Login& m);
Json to_json(const Logout& m);
Json to_json(const ChangePassword& m);
Json to_json(const ClientMsg& m);

std::string_view color_name(ColorChoice c);

}  // namespace tf::proto
