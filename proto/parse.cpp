// Strict parsing of client messages: exact JSON types, required fields present, the rules'
// canonical JSON for setups and turns. Unknown extra fields are ignored (forward compatibility).
#include <algorithm>
#include <unordered_map>

#include "common/json.h"
#include "proto/messages.h"
#include "proto/parse_util.h"

namespace tf::proto {
namespace {

using namespace detail;

std::string code(const Json& j, const char* k) {
    auto c = game_code(str(field(j, k), k, 16));
    if (!c) bad(std::string("field \"") + k + "\" is not a game code (letters and digits)");
    return *c;
}

ClientMsg hello(const Json& j) {
    Hello m;
    m.version = int(std::clamp<std::int64_t>(integer(field(j, "version"), "version"), -1, 1 << 20));
    m.name = opt_str(j, "name", kMaxNameChars);
    m.token = opt_str(j, "token", 128);
    return m;
}
// "variant": optional, the default variant when absent.
Variant variant_field(const Json& j) {
    const Json* v = opt_field(j, "variant");
    if (!v) return Variant{};
    auto var = variant_from_json(*v);
    if (!var) throw Fail{{Err::BadVariant, var.error().message}};
    return *var;
}
// "time_control": required, null (untimed), {initial_ms > 0, increment_ms >= 0} (Fischer) or
// {days_per_move: one of kCorrespondenceDays} (correspondence), nothing else in it.
std::optional<TimeControl> time_control_field(const Json& j) {
    const Json& tc = field(j, "time_control");
    if (tc.is_null()) return std::nullopt;
    if (!tc.is_object()) bad("field \"time_control\" must be an object or null");
    if (tc.contains("days_per_move")) {
        auto d = integer(tc["days_per_move"], "days_per_move");
        if (tc.size() != 1) bad("time_control with days_per_move takes nothing else");
        if (!correspondence_days(d))
            bad("time_control.days_per_move must be one of 1, 2, 3, 5, 7, 10, 14");
        return TimeControl{0, 0, int(d)};
    }
    TimeControl t{non_negative(field(tc, "initial_ms"), "initial_ms"),
                  non_negative(field(tc, "increment_ms"), "increment_ms")};
    if (t.initial_ms <= 0) bad("time_control.initial_ms must be > 0");
    return t;
}
ClientMsg create_game(const Json& j) {
    CreateGame m;
    m.variant = variant_field(j);
    m.time_control = time_control_field(j);
    auto c = str(field(j, "color"), "color");
    if (c == "silver")
        m.color = ColorChoice::Silver;
    else if (c == "bronze")
        m.color = ColorChoice::Bronze;
    else if (c == "random")
        m.color = ColorChoice::Random;
    else
        bad("field \"color\" must be silver, bronze or random");
    const Json& p = field(j, "public");
    if (!p.is_boolean()) bad("field \"public\" must be a boolean");
    m.is_public = p.get<bool>();
    m.rated = opt_bool(j, "rated");
    if (const Json* b = opt_field(j, "bot"); b && !b->is_null()) {
        if (!b->is_number_integer() || b->get<std::int64_t>() < 1 || b->get<std::int64_t>() > 5)
            bad("field \"bot\" must be a level from 1 to 5, or null");
        m.bot = int(b->get<std::int64_t>());
    }
    m.ref = opt_str(j, "ref", 64);
    if (const Json* t = opt_field(j, "to"); t && !t->is_null()) {
        auto to = str(*t, "to", 4 * kMaxUsernameChars);
        if (!is_username(to)) throw Fail{{Err::UnknownPlayer, "no account is called that"}};
        m.to = std::move(to);
    }
    return m;
}
// quick_match: "variant" optional (default), "time_control" required, an object or null.
ClientMsg quick_match(const Json& j) {
    QuickMatch m;
    m.variant = variant_field(j);
    m.time_control = time_control_field(j);
    m.rated = opt_bool(j, "rated");
    return m;
}
ClientMsg watch(const Json& j) {
    return Watch{code(j, "code"), opt_version(j, "since_version")};
}
// A setup or turn that is not the rules' canonical JSON is illegal (rules spec §6): the
// rules' own error, as for one the rules refuse.
[[noreturn]] void illegal(Err code, const RuleError& e) {
    throw Fail{{code, e.message, std::nullopt, std::string(error_code_name(e.code))}};
}
ClientMsg setup(const Json& j) {
    auto s = setup_from_json(field(j, "setup"));
    if (!s) illegal(Err::IllegalSetup, s.error());
    return SetupMsg{code(j, "game"), *s, opt_version(j, "version"), opt_str(j, "ref", 64)};
}
ClientMsg turn(const Json& j) {
    auto t = turn_from_json(field(j, "turn"));
    if (!t) illegal(Err::IllegalTurn, t.error());
    auto lag = opt_version(j, "lag_ms");
    if (lag && *lag > kMaxLagMs) bad("field \"lag_ms\" must be at most 60000");
    return TurnMsg{code(j, "game"), *t, opt_version(j, "version"), opt_str(j, "ref", 64), lag};
}
ClientMsg chat(const Json& j) {
    std::string text = str(field(j, "text"), "text", kMaxMessageBytes);
    if (chars(text) > kMaxChatChars)
        throw Fail{{Err::ChatTooLong, "chat text longer than 500 characters"}};
    return Chat{code(j, "game"), std::move(text), opt_str(j, "ref", 64)};
}

// Usernames and passwords: strings of bounded length. A username's characters are checked
// here (bad_username); a password's length (weak_password) when it is a new one, so a login
// with a wrong password of any length is just bad_credentials.
std::string username(const Json& j) {
    std::string u = str(field(j, "username"), "username", 4 * kMaxUsernameChars);
    if (!is_username(u))
        throw Fail{{Err::BadUsername,
                    "a username is 3 to 20 letters, digits, '_' or '-', starting with a letter or "
                    "digit"}};
    return u;
}
std::string password(const Json& j, const char* k, bool is_new) {
    std::string p = str(field(j, k), k, 4 * kMaxPasswordChars);
    if (is_new && (chars(p) < kMinPasswordChars || chars(p) > kMaxPasswordChars))
        throw Fail{{Err::WeakPassword, "a password is 8 to 128 characters"}};
    return p;
}
ClientMsg register_(const Json& j) {
    return Register{username(j), password(j, "password", true), opt_str(j, "ref", 64)};
}
ClientMsg login(const Json& j) {
    // Any name may be tried (an ill-formed one is unknown): bad_credentials, not bad_username.
    std::string u = str(field(j, "username"), "username", 4 * kMaxUsernameChars);
    return Login{std::move(u), password(j, "password", false), opt_str(j, "ref", 64)};
}
ClientMsg logout(const Json& j) {
    return Logout{opt_bool(j, "everywhere"), opt_str(j, "ref", 64)};
}
ClientMsg change_password(const Json& j) {
    return ChangePassword{password(j, "password", false), password(j, "new_password", true),
                          opt_str(j, "ref", 64)};
}

using Parser = ClientMsg (*)(const Json&);
const std::unordered_map<std::string, Parser>& parsers() {
    static const std::unordered_map<std::string, Parser> m = {
        {"hello", hello},
        {"create_game", create_game},
        {"join_game", [](const Json& j) -> ClientMsg { return JoinGame{code(j, "code")}; }},
        {"cancel_game", [](const Json& j) -> ClientMsg { return CancelGame{code(j, "code")}; }},
        {"list_games", [](const Json&) -> ClientMsg { return ListGames{}; }},
        {"watch", watch},
        {"setup", setup},
        {"turn", turn},
        {"resign",
         [](const Json& j) -> ClientMsg {
             return Resign{code(j, "game"), opt_str(j, "ref", 64)};
         }},
        {"chat", chat},
        {"ping", [](const Json&) -> ClientMsg { return Ping{}; }},
        {"quick_match", quick_match},
        {"quick_match_cancel", [](const Json&) -> ClientMsg { return QuickMatchCancel{}; }},
        {"list_live", [](const Json&) -> ClientMsg { return ListLive{}; }},
        {"draw_offer",
         [](const Json& j) -> ClientMsg {
             return DrawOffer{code(j, "game"), opt_str(j, "ref", 64)};
         }},
        {"draw_accept",
         [](const Json& j) -> ClientMsg {
             return DrawAccept{code(j, "game"), opt_str(j, "ref", 64)};
         }},
        {"draw_decline",
         [](const Json& j) -> ClientMsg {
             return DrawDecline{code(j, "game"), opt_str(j, "ref", 64)};
         }},
        {"claim_win", [](const Json& j) -> ClientMsg { return ClaimWin{code(j, "game")}; }},
        {"abort", [](const Json& j) -> ClientMsg { return Abort{code(j, "game")}; }},
        {"claim_draw", [](const Json& j) -> ClientMsg { return ClaimDraw{code(j, "game")}; }},
        {"takeback_offer",
         [](const Json& j) -> ClientMsg { return TakebackOffer{code(j, "game")}; }},
        {"takeback_accept",
         [](const Json& j) -> ClientMsg { return TakebackAccept{code(j, "game")}; }},
        {"takeback_decline",
         [](const Json& j) -> ClientMsg { return TakebackDecline{code(j, "game")}; }},
        {"give_time", [](const Json& j) -> ClientMsg { return GiveTime{code(j, "game")}; }},
        {"berserk", [](const Json& j) -> ClientMsg { return Berserk{code(j, "game")}; }},
        {"preferences",
         [](const Json& j) -> ClientMsg {
             return Preferences{code(j, "game"), opt_bool_field(j, "takeback"),
                                opt_bool_field(j, "more_time")};
         }},
        {"rematch", [](const Json& j) -> ClientMsg { return Rematch{code(j, "game")}; }},
        {"decline_challenge",
         [](const Json& j) -> ClientMsg {
             DeclineChallenge m{code(j, "game")};
             if (auto r = opt_str(j, "reason", 32)) {
                 bool known = false;
                 for (const char* k : kDeclineReasons) known = known || *r == k;
                 if (!known)
                     bad("field \"reason\" must be one of generic, later, too_fast, too_slow, "
                         "time_control, rated, casual, variant, no_bot, only_bot");
                 m.reason = *r;
             }
             return m;
         }},
        {"rematch_decline",
         [](const Json& j) -> ClientMsg { return RematchDecline{code(j, "game")}; }},
        {"register", register_},
        {"login", login},
        {"logout", logout},
        {"change_password", change_password},
    };
    return m;
}

}  // namespace

bool is_game_code(std::string_view s) {
    if (s.empty() || s.size() > 16) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    return true;
}

std::optional<std::string> game_code(std::string_view s) {
    std::string c(s);
    for (char& ch : c)
        if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
    if (!is_game_code(c)) return std::nullopt;
    return c;
}

bool is_username(std::string_view s) {
    if (s.size() < kMinUsernameChars || s.size() > kMaxUsernameChars) return false;
    auto alnum = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    };
    if (!alnum(s[0])) return false;
    for (char c : s)
        if (!alnum(c) && c != '_' && c != '-') return false;
    return true;
}

std::optional<std::string> game_of(const ClientMsg& msg) {
    return std::visit(
        [](const auto& m) -> std::optional<std::string> {
            if constexpr (requires { m.game; }) {
                if constexpr (std::is_same_v<std::decay_t<decltype(m.game)>, std::string>)
                    return m.game;
            }
            if constexpr (requires { m.code; }) {
                if constexpr (std::is_same_v<std::decay_t<decltype(m.code)>, std::string>)
                    return m.code;
            }
            return std::nullopt;
        },
        msg);
}

std::variant<ClientMsg, Error> parse_client(const Json& j) {
    return parse_typed(j, parsers());
}

std::variant<ClientMsg, Error> parse_client(std::string_view text) {
    return parse_text<ClientMsg>(text, [](const Json& j) { return parse_client(j); });
}

}  // namespace tf::proto
