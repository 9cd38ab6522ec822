// The closed set of protocol messages (proto/PROTOCOL.md): one struct per message.
// Client -> server messages are parsed strictly by parse_client(); every message has one
// serializer to_json() that writes its "type".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/turn.h"
#include "common/types.h"
#include "proto/errors.h"

namespace tf::proto {

using Json = nlohmann::json;

inline constexpr int kProtocolVersion = 1;
inline constexpr std::size_t kMaxMessageBytes = 16 * 1024;
inline constexpr std::size_t kMaxChatChars = 500;  // bytes of UTF-8
inline constexpr std::size_t kMaxNameChars = 32;

struct TimeControl {
    std::int64_t initial_ms = 0;
    std::int64_t increment_ms = 0;
    friend bool operator==(const TimeControl&, const TimeControl&) = default;
};

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
};
struct Resign {
    std::string game;
};
struct Chat {
    std::string game;
    std::string text;
};
struct Ping {};
// Quick match: pair with another waiting player asking for the same time control and variant.
struct QuickMatch {
    Variant variant;
    std::optional<TimeControl> time_control;  // nullopt: untimed
};
struct QuickMatchCancel {};
struct ListLive {};  // subscribe to the list of live games
// Draw offers (an offer lapses with the offerer's next turn) and claiming an abandoned game.
struct DrawOffer {
    std::string game;
};
struct DrawAccept {
    std::string game;
};
struct DrawDecline {
    std::string game;
};
struct ClaimWin {
    std::string game;
};

using ClientMsg = std::variant<Hello, CreateGame, JoinGame, CancelGame, ListGames, Watch, SetupMsg,
                               TurnMsg, Resign, Chat, Ping, QuickMatch, QuickMatchCancel, ListLive,
                               DrawOffer, DrawAccept, DrawDecline, ClaimWin>;

// Parses one client message; the error is bad_json, unknown_type or bad_message.
std::variant<ClientMsg, Error> parse_client(std::string_view text);
std::variant<ClientMsg, Error> parse_client(const Json& j);

// ---- server -> client ----
struct Welcome {
    std::string player_id, token, name;
    std::vector<std::string> games;  // codes of live games where this player holds a seat
};
struct GameCreated {
    std::string code, link;
};
struct SnapshotMsg {
    std::string game;
    std::int64_t version = 0;
    std::string status;  // open | playing | over | cancelled
    Json state;          // tf::state_to_json
    Json record;         // {"variant", "setup": {"silver", "bronze"}, "turns"}
    Json players;        // {"silver": {"id","name"} | null, "bronze": ...}
    Json clocks;         // null when untimed; else {"silver_ms","bronze_ms","running","at"}
    int spectators = 0;
    Json draw_offer = nullptr;  // the side whose draw offer stands, or null
};
struct Event {
    std::string game;
    std::int64_t version = 0;
    std::string kind;  // join | setup | turn | resign | game_over | chat | cancel
    Json payload;
    Json clocks;
};
struct Ack {
    std::optional<std::string> ref;
    std::int64_t version = 0;
};
struct ErrorMsg {
    Err code;
    std::string message;
    std::optional<std::string> ref;
    std::optional<std::int64_t> version;
    std::optional<std::string> rule;  // the rules library's code for illegal setups/turns
};
struct Lobby {
    Json games;  // array of open public games
};
struct Pong {};
struct Shutdown {  // the server is stopping (SIGTERM): reconnect after retry_after_ms
    std::string message;
    std::int64_t retry_after_ms = 0;
};
struct QuickMatchWaiting {  // the quick-match request is queued (or replaced the previous one)
    Variant variant;
    std::optional<TimeControl> time_control;
};
struct QuickMatchCancelled {};
struct Matched {  // paired by quick match; the game's snapshot follows
    std::string code, link;
    Side side;
};
struct Live {
    Json games;  // array of live games (PROTOCOL.md "live")
};

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
Json to_json(const ClientMsg& m);

Json to_json(const Welcome& m);
Json to_json(const GameCreated& m);
Json to_json(const SnapshotMsg& m);
Json to_json(const Event& m);
Json to_json(const Ack& m);
Json to_json(const ErrorMsg& m);
Json to_json(const Lobby& m);
Json to_json(const Pong& m);
Json to_json(const Shutdown& m);
Json to_json(const QuickMatchWaiting& m);
Json to_json(const QuickMatchCancelled& m);
Json to_json(const Matched& m);
Json to_json(const Live& m);

std::string_view color_name(ColorChoice c);

}  // namespace tf::proto
