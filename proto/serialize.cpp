// One serializer per message. Optional fields are omitted when absent.
#include "common/json.h"
#include "proto/messages.h"

namespace tf::proto {
namespace {

template <class T>
void put_opt(Json& j, const char* k, const std::optional<T>& v) {
    if (v) j[k] = *v;
}

}  // namespace

std::string_view color_name(ColorChoice c) {
    return c == ColorChoice::Silver ? "silver" : c == ColorChoice::Bronze ? "bronze" : "random";
}

Json to_json(const TimeControl& t) {
    return {{"initial_ms", t.initial_ms}, {"increment_ms", t.increment_ms}};
}

Json to_json(const Hello& m) {
    Json j = {{"type", "hello"}, {"version", m.version}};
    put_opt(j, "name", m.name);
    put_opt(j, "token", m.token);
    return j;
}
Json to_json(const CreateGame& m) {
    return {{"type", "create_game"},
            {"variant", tf::to_json(m.variant)},
            {"time_control", m.time_control ? to_json(*m.time_control) : Json(nullptr)},
            {"color", color_name(m.color)},
            {"public", m.is_public},
            {"bot", m.bot ? Json(*m.bot) : Json(nullptr)}};
}
Json to_json(const JoinGame& m) {
    return {{"type", "join_game"}, {"code", m.code}};
}
Json to_json(const CancelGame& m) {
    return {{"type", "cancel_game"}, {"code", m.code}};
}
Json to_json(const ListGames&) {
    return {{"type", "list_games"}};
}
Json to_json(const Watch& m) {
    Json j = {{"type", "watch"}, {"code", m.code}};
    put_opt(j, "since_version", m.since_version);
    return j;
}
Json to_json(const SetupMsg& m) {
    Json j = {{"type", "setup"}, {"game", m.game}, {"setup", tf::to_json(m.setup)}};
    put_opt(j, "version", m.version);
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const TurnMsg& m) {
    Json j = {{"type", "turn"}, {"game", m.game}, {"turn", tf::to_json(m.turn)}};
    put_opt(j, "version", m.version);
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const Resign& m) {
    return {{"type", "resign"}, {"game", m.game}};
}
Json to_json(const Chat& m) {
    return {{"type", "chat"}, {"game", m.game}, {"text", m.text}};
}
Json to_json(const Ping&) {
    return {{"type", "ping"}};
}
Json to_json(const QuickMatch& m) {
    return {{"type", "quick_match"},
            {"variant", tf::to_json(m.variant)},
            {"time_control", m.time_control ? to_json(*m.time_control) : Json(nullptr)}};
}
Json to_json(const QuickMatchCancel&) {
    return {{"type", "quick_match_cancel"}};
}
Json to_json(const ListLive&) {
    return {{"type", "list_live"}};
}
Json to_json(const DrawOffer& m) {
    return {{"type", "draw_offer"}, {"game", m.game}};
}
Json to_json(const DrawAccept& m) {
    return {{"type", "draw_accept"}, {"game", m.game}};
}
Json to_json(const DrawDecline& m) {
    return {{"type", "draw_decline"}, {"game", m.game}};
}
Json to_json(const ClaimWin& m) {
    return {{"type", "claim_win"}, {"game", m.game}};
}
Json to_json(const ClientMsg& m) {
    return std::visit([](const auto& x) { return to_json(x); }, m);
}

Json to_json(const Welcome& m) {
    return {{"type", "welcome"}, {"player_id", m.player_id},       {"token", m.token},
            {"name", m.name},    {"versions", {kProtocolVersion}}, {"games", m.games}};
}
Json to_json(const GameCreated& m) {
    return {{"type", "game_created"}, {"code", m.code}, {"link", m.link}};
}
Json to_json(const SnapshotMsg& m) {
    return {{"type", "snapshot"},        {"game", m.game},     {"version", m.version},
            {"status", m.status},        {"state", m.state},   {"record", m.record},
            {"players", m.players},      {"clocks", m.clocks}, {"spectators", m.spectators},
            {"draw_offer", m.draw_offer}};
}
Json to_json(const Event& m) {
    return {{"type", "event"}, {"game", m.game},       {"version", m.version},
            {"kind", m.kind},  {"payload", m.payload}, {"clocks", m.clocks}};
}
Json to_json(const Ack& m) {
    Json j = {{"type", "ack"}, {"version", m.version}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const ErrorMsg& m) {
    Json j = {{"type", "error"}, {"code", err_name(m.code)}, {"message", m.message}};
    put_opt(j, "ref", m.ref);
    put_opt(j, "version", m.version);
    put_opt(j, "rule", m.rule);
    return j;
}
Json to_json(const Lobby& m) {
    return {{"type", "lobby"}, {"games", m.games}};
}
Json to_json(const Pong&) {
    return {{"type", "pong"}};
}
Json to_json(const Shutdown& m) {
    return {{"type", "shutdown"}, {"message", m.message}, {"retry_after_ms", m.retry_after_ms}};
}
Json to_json(const QuickMatchWaiting& m) {
    return {{"type", "quick_match_waiting"},
            {"variant", tf::to_json(m.variant)},
            {"time_control", m.time_control ? to_json(*m.time_control) : Json(nullptr)}};
}
Json to_json(const QuickMatchCancelled&) {
    return {{"type", "quick_match_cancelled"}};
}
Json to_json(const Matched& m) {
    return {{"type", "matched"}, {"code", m.code}, {"link", m.link}, {"side", side_name(m.side)}};
}
Json to_json(const Live& m) {
    return {{"type", "live"}, {"games", m.games}};
}

}  // namespace tf::proto
