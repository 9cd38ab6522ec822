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
    if (t.correspondence()) return {{"days_per_move", t.days_per_move}};
    Json j = {{"initial_ms", t.initial_ms}, {"increment_ms", t.increment_ms}};
    if (t.berserk) j["berserk"] = true;
    return j;
}

Json to_json(const Hello& m) {
    Json j = {{"type", "hello"}, {"version", m.version}};
    put_opt(j, "name", m.name);
    put_opt(j, "token", m.token);
    return j;
}
Json to_json(const CreateGame& m) {
    Json j = {{"type", "create_game"},
              {"variant", tf::to_json(m.variant)},
              {"time_control", m.time_control ? to_json(*m.time_control) : Json(nullptr)},
              {"color", color_name(m.color)},
              {"public", m.is_public},
              {"bot", m.bot ? Json(*m.bot) : Json(nullptr)},
              {"rated", m.rated}};
    put_opt(j, "ref", m.ref);
    put_opt(j, "to", m.to);
    return j;
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
    put_opt(j, "lag_ms", m.lag_ms);
    return j;
}
Json to_json(const Resign& m) {
    Json j = {{"type", "resign"}, {"game", m.game}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const Chat& m) {
    Json j = {{"type", "chat"}, {"game", m.game}, {"text", m.text}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const Ping&) {
    return {{"type", "ping"}};
}
Json to_json(const QuickMatch& m) {
    return {{"type", "quick_match"},
            {"variant", tf::to_json(m.variant)},
            {"time_control", m.time_control ? to_json(*m.time_control) : Json(nullptr)},
            {"rated", m.rated}};
}
Json to_json(const QuickMatchCancel&) {
    return {{"type", "quick_match_cancel"}};
}
Json to_json(const ListLive&) {
    return {{"type", "list_live"}};
}
Json to_json(const DrawOffer& m) {
    Json j = {{"type", "draw_offer"}, {"game", m.game}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const DrawAccept& m) {
    Json j = {{"type", "draw_accept"}, {"game", m.game}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const DrawDecline& m) {
    Json j = {{"type", "draw_decline"}, {"game", m.game}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const ClaimWin& m) {
    return {{"type", "claim_win"}, {"game", m.game}};
}
Json to_json(const Abort& m) {
    return {{"type", "abort"}, {"game", m.game}};
}
Json to_json(const TakebackOffer& m) {
    return {{"type", "takeback_offer"}, {"game", m.game}};
}
Json to_json(const TakebackAccept& m) {
    return {{"type", "takeback_accept"}, {"game", m.game}};
}
Json to_json(const TakebackDecline& m) {
    return {{"type", "takeback_decline"}, {"game", m.game}};
}
Json to_json(const GiveTime& m) {
    return {{"type", "give_time"}, {"game", m.game}};
}
Json to_json(const Berserk& m) {
    return {{"type", "berserk"}, {"game", m.game}};
}
Json to_json(const Preferences& m) {
    Json j{{"type", "preferences"}, {"game", m.game}};
    if (m.takeback) j["takeback"] = *m.takeback;
    if (m.more_time) j["more_time"] = *m.more_time;
    return j;
}
Json to_json(const ClaimDraw& m) {
    return {{"type", "claim_draw"}, {"game", m.game}};
}
Json to_json(const Rematch& m) {
    return {{"type", "rematch"}, {"game", m.game}};
}
Json to_json(const DeclineChallenge& m) {
    return {{"type", "decline_challenge"}, {"game", m.game}, {"reason", m.reason}};
}
Json to_json(const RematchDecline& m) {
    return {{"type", "rematch_decline"}, {"game", m.game}};
}
Json to_json(const Register& m) {
    Json j = {{"type", "register"}, {"username", m.username}, {"password", m.password}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const Login& m) {
    Json j = {{"type", "login"}, {"username", m.username}, {"password", m.password}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const Logout& m) {
    Json j = {{"type", "logout"}, {"everywhere", m.everywhere}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const ChangePassword& m) {
    Json j = {
        {"type", "change_password"}, {"password", m.password}, {"new_password", m.new_password}};
    put_opt(j, "ref", m.ref);
    return j;
}
Json to_json(const ClientMsg& m) {
    return std::visit([](const auto& x) { return to_json(x); }, m);
}

}  // namespace tf::proto
