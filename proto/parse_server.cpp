// Strict parsing of server messages, the mirror of serialize_server.cpp: exact JSON types,
// required fields present, the rules' canonical JSON for setups, turns and the game state.
// Unknown extra fields are ignored, and an event of an unknown kind parses as UnknownEv (a
// client older than its server keeps counting versions).
#include <algorithm>
#include <unordered_map>

#include "common/json.h"
#include "proto/messages.h"
#include "proto/parse_util.h"

namespace tf::proto {
namespace {

using namespace detail;

Side side(const Json& v, const char* k) {
    auto s = parse_side(str(v, k));
    if (!s) bad(std::string("field \"") + k + "\" must be silver or bronze");
    return *s;
}
std::optional<Side> opt_side(const Json& j, const char* k) {
    if (auto* v = opt_field(j, k)) return side(*v, k);
    return std::nullopt;
}
// A snapshot's list of sides (vacation, berserk) into `sides`; absent: none.
void read_sides(const Json& j, const char* key, bool sides[2]) {
    if (auto* v = opt_field(j, key))
        for (const Json& s : array(*v, key)) sides[idx(side(s, key))] = true;
}
Side side_field(const Json& j) {
    return side(field(j, "side"), "side");
}
int count(const Json& v, const char* k) {
    return int(std::clamp<std::int64_t>(non_negative(v, k), 0, 1 << 30));
}
PlayerRef player(const Json& v, const char* k) {
    object(v, k);
    return {str(field(v, "id"), "id"), str(field(v, "name"), "name", 1024), opt_bool(v, "bot")};
}
Variant variant(const Json& v) {
    auto var = variant_from_json(v);
    if (!var) bad("field \"variant\": " + var.error().message);
    return *var;
}
std::optional<TimeControl> time_control(const Json& j) {
    const Json& tc = field(j, "time_control");
    if (tc.is_null()) return std::nullopt;
    object(tc, "time_control");
    if (const Json* d = opt_field(tc, "days_per_move")) {
        auto days = integer(*d, "days_per_move");
        if (!correspondence_days(days))
            bad("time_control.days_per_move is not a correspondence time");
        return TimeControl{0, 0, int(days)};
    }
    TimeControl t{non_negative(field(tc, "initial_ms"), "initial_ms"),
                  non_negative(field(tc, "increment_ms"), "increment_ms")};
    if (const Json* b = opt_field(tc, "berserk")) t.berserk = boolean(*b, "berserk");
    return t;
}
Setup setup(const Json& v) {
    auto s = setup_from_json(v);
    if (!s) bad("field \"setup\": " + s.error().message);
    return *s;
}
Turn turn(const Json& v) {
    auto t = turn_from_json(v);
    if (!t) bad("field \"turn\": " + t.error().message);
    return *t;
}
Cell cell(const Json& v, const char* k) {
    auto c = cell_from_json(v, k);
    if (!c) bad(c.error().message);
    return *c;
}
void score(const Json& v, int out[2]) {
    object(v, "score");
    out[0] = int(integer(field(v, "silver"), "silver"));
    out[1] = int(integer(field(v, "bronze"), "bronze"));
}
std::optional<ClockReading> clocks(const Json& j) {
    const Json& c = field(j, "clocks");
    if (c.is_null()) return std::nullopt;
    object(c, "clocks");
    return ClockReading{non_negative(field(c, "silver_ms"), "silver_ms"),
                        non_negative(field(c, "bronze_ms"), "bronze_ms"), opt_side(c, "running"),
                        integer(field(c, "at"), "at")};
}

Result result(const Json& v) {
    object(v, "result");
    Result r;
    r.over = boolean(field(v, "over"), "over");
    if (auto reason = opt_str(v, "reason")) {
        bool known = false;
        for (int i = 0; i <= int(ResultReason::Aborted); ++i)
            if (reason_name(ResultReason(i)) == *reason) r.reason = ResultReason(i), known = true;
        if (!known) bad("unknown result reason \"" + *reason + "\"");
    }
    score(field(v, "score"), r.score);
    if (auto w = opt_str(v, "winner")) {
        if (*w == "silver")
            r.winner = Winner::Silver;
        else if (*w == "bronze")
            r.winner = Winner::Bronze;
        else if (*w == "draw")
            r.winner = Winner::Draw;
        else
            bad("field \"winner\" must be silver, bronze, draw or null");
    }
    r.to_move = opt_side(v, "to_move");
    return r;
}

RatingView rating_view(const Json& v, const char* k) {
    object(v, k);
    return {int(integer(field(v, "rating"), "rating")),
            int(integer(field(v, "deviation"), "deviation")), count(field(v, "games"), "games"),
            boolean(field(v, "provisional"), "provisional")};
}
std::optional<RatingView> opt_rating(const Json& j, const char* k) {
    if (auto* v = opt_field(j, k)) return rating_view(*v, k);
    return std::nullopt;
}
RatingsEv ratings(const Json& p) {
    object(p, "ratings");
    RatingsEv e{str(field(p, "category"), "category", 64), {}};
    for (Side s : {Side::Silver, Side::Bronze})
        if (auto* c = opt_field(p, std::string(side_name(s)).c_str()))
            e.change[idx(s)] =
                RatingChange{int(integer(field(object(*c, "ratings"), "before"), "before")),
                             rating_view(field(*c, "after"), "after")};
    return e;
}

// A chat line; "room" absent (events stored before it existed) is the players' room.
ChatEv chat(const Json& p) {
    ChatEv c{player(field(p, "from"), "from"), str(field(p, "text"), "text", kMaxMessageBytes),
             ChatRoom::Players};
    c.hidden = opt_bool(p, "hidden");
    if (auto room = opt_str(p, "room")) {
        if (*room == "spectators")
            c.room = ChatRoom::Spectators;
        else if (*room != "players")
            bad("field \"room\" must be players or spectators");
    }
    return c;
}

SeatPrefs seat_prefs(const Json& p) {
    return {boolean(field(p, "takeback"), "takeback"), boolean(field(p, "more_time"), "more_time")};
}

EventBody payload(const std::string& kind, const Json& p) {
    if (kind == "join") return JoinEv{side_field(p), player(field(p, "player"), "player")};
    if (kind == "setup") return SetupEv{side_field(p), setup(field(p, "setup"))};
    if (kind == "turn") {
        TurnEv e{side_field(p), turn(field(p, "turn")), {}};
        if (auto* cs = opt_field(p, "captures"))
            for (const Json& c : array(*cs, "captures"))
                e.captures.push_back(
                    {side_field(object(c, "captures")), cell(field(c, "cell"), "cell")});
        return e;
    }
    if (kind == "resign") return ResignEv{side_field(p)};
    if (kind == "draw_offer") return DrawOfferEv{side_field(p)};
    if (kind == "draw_decline") return DrawDeclineEv{side_field(p)};
    if (kind == "draw_accept") return DrawAcceptEv{side_field(p)};
    if (kind == "timeout") return TimeoutEv{side_field(p)};
    if (kind == "player_back") return PlayerBackEv{side_field(p)};
    if (kind == "player_left")
        return PlayerLeftEv{side_field(p), integer(field(p, "claim_at"), "claim_at"),
                            integer(field(p, "award_at"), "award_at")};
    if (kind == "abandon") return AbandonEv{side_field(p), boolean(field(p, "claimed"), "claimed")};
    if (kind == "abort") {
        auto r = str(field(p, "reason"), "reason");
        if (r == "no_start") return AbortEv{AbortReason::NoStart, std::nullopt};
        if (r == "abandoned") return AbortEv{AbortReason::Abandoned, std::nullopt};
        if (r == "player") return AbortEv{AbortReason::Player, side_field(p)};
        bad("field \"reason\" must be no_start, abandoned or player");
    }
    if (kind == "game_over") return GameOverEv{result(p)};
    if (kind == "chat") return chat(p);
    if (kind == "cancel") return CancelEv{opt_str(p, "declined", 32)};
    if (kind == "spectators") return SpectatorsEv{count(field(p, "count"), "count")};
    if (kind == "hidden") return HiddenEv{};
    if (kind == "rematch_offer") return RematchOfferEv{side_field(p)};
    if (kind == "rematch_decline") return RematchDeclineEv{side_field(p)};
    if (kind == "rematch") return RematchEv{str(field(p, "code"), "code", 16)};
    if (kind == "ratings") return ratings(p);
    if (kind == "takeback_offer") return TakebackOfferEv{side_field(p)};
    if (kind == "takeback_decline") return TakebackDeclineEv{side_field(p)};
    if (kind == "takeback") {
        auto n = integer(field(p, "turns"), "turns");
        if (n < 1 || n > 2) bad("field \"turns\" must be 1 or 2");
        return TakebackEv{side_field(p), int(n)};
    }
    if (kind == "time_given") {
        auto ms = integer(field(p, "ms"), "ms");
        if (ms < 1 || ms > 3600000) bad("field \"ms\" must be 1 to 3600000");
        return TimeGivenEv{side_field(p), ms};
    }
    if (kind == "preferences") return PreferencesEv{side_field(p), seat_prefs(p)};
    if (kind == "stalling") return StallingEv{side_field(p)};
    if (kind == "stall_claim")
        return StallClaimEv{side_field(p), boolean(field(p, "draw"), "draw")};
    if (kind == "vacation") return VacationEv{side_field(p), boolean(field(p, "on"), "on")};
    if (kind == "berserk") return BerserkEv{side_field(p)};
    return UnknownEv{kind};
}

ServerMsg event(const Json& j) {
    Event e;
    e.game = str(field(j, "game"), "game", 16);
    e.version = non_negative(field(j, "version"), "version");
    e.clocks = clocks(j);
    e.body = payload(str(field(j, "kind"), "kind", 64), object(field(j, "payload"), "payload"));
    return e;
}

ServerMsg snapshot(const Json& j) {
    SnapshotMsg m;
    m.game = str(field(j, "game"), "game", 16);
    m.version = non_negative(field(j, "version"), "version");
    auto st = status_from_name(str(field(j, "status"), "status"));
    if (!st) bad("unknown status");
    m.status = *st;
    auto g = game_from_json(field(j, "state"));
    if (!g) bad("field \"state\": " + g.error().message);
    m.state = std::move(*g);
    const Json& rec = object(field(j, "record"), "record");
    m.record.variant = variant(field(rec, "variant"));
    m.record.time_control = time_control(rec);
    const Json& setups = object(field(rec, "setup"), "setup");
    for (Side s : {Side::Silver, Side::Bronze})
        if (auto* v = opt_field(setups, std::string(side_name(s)).c_str()))
            m.record.setup[idx(s)] = setup(*v);
    for (const Json& t : array(field(rec, "turns"), "turns")) m.record.turns.push_back(turn(t));
    if (auto* pos = opt_field(rec, "position")) m.record.position = str(*pos, "position", 600);
    const Json& players = object(field(j, "players"), "players");
    for (Side s : {Side::Silver, Side::Bronze}) {
        const Json* p = opt_field(players, std::string(side_name(s)).c_str());
        if (!p) continue;
        Seat seat{player(*p, "players"), std::nullopt, opt_rating(*p, "rating")};
        if (auto* a = opt_field(*p, "away"))
            seat.away = Away{integer(field(object(*a, "away"), "claim_at"), "claim_at"),
                             integer(field(*a, "award_at"), "award_at")};
        m.players[idx(s)] = std::move(seat);
    }
    m.clocks = clocks(j);
    m.spectators = count(field(j, "spectators"), "spectators");
    m.draw_offer = opt_side(j, "draw_offer");
    m.takeback_offer = opt_side(j, "takeback_offer");
    m.stalling = opt_side(j, "stalling");
    if (auto* prefs = opt_field(j, "preferences"))
        for (Side s : {Side::Silver, Side::Bronze})
            m.preferences[idx(s)] = seat_prefs(
                object(field(object(*prefs, "preferences"), std::string(side_name(s)).c_str()),
                       "preferences"));
    if (auto* pub = opt_field(j, "public")) m.is_public = boolean(*pub, "public");
    m.rated = opt_bool(j, "rated");
    if (auto* r = opt_field(j, "ratings")) m.ratings = ratings(*r);
    if (auto* inv = opt_field(j, "invitee")) m.invitee = player(*inv, "invitee");
    read_sides(j, "vacation", m.vacation);
    read_sides(j, "berserk", m.berserk);
    if (auto* lines = opt_field(j, "chat"))
        for (const Json& c : array(*lines, "chat")) m.chat.push_back(chat(object(c, "chat")));
    return m;
}

ServerMsg welcome(const Json& j) {
    Welcome m;
    m.player_id = str(field(j, "player_id"), "player_id");
    m.token = str(field(j, "token"), "token");
    m.name = str(field(j, "name"), "name", 1024);
    m.games.clear();
    for (const Json& g : array(field(j, "games"), "games")) m.games.push_back(str(g, "games", 16));
    m.versions.clear();
    for (const Json& v : array(field(j, "versions"), "versions"))
        m.versions.push_back(int(integer(v, "versions")));
    if (auto* a = opt_field(j, "account")) {
        AccountInfo info{str(field(object(*a, "account"), "username"), "username", 64), {}};
        for (const auto& [category, r] : object(field(*a, "ratings"), "ratings").items())
            info.ratings[category] = rating_view(r, "ratings");
        if (auto* roles = opt_field(*a, "roles"))
            for (const Json& r : array(*roles, "roles")) info.roles.push_back(str(r, "roles", 32));
        m.account = std::move(info);
    }
    m.ref = opt_str(j, "ref", 64);
    return m;
}

ServerMsg error(const Json& j) {
    ErrorMsg m{Err::Internal, str(field(j, "message"), "message", kMaxMessageBytes), {}, {}, {}};
    auto code = str(field(j, "code"), "code");
    auto known = err_from_name(code);
    if (!known) bad("unknown error code \"" + code + "\"");
    m.code = *known;
    m.ref = opt_str(j, "ref", 64);
    m.version = opt_version(j, "version");
    m.rule = opt_str(j, "rule");
    m.game = opt_str(j, "game", 16);
    return m;
}

ServerMsg lobby(const Json& j) {
    Lobby m;
    for (const Json& g : array(field(j, "games"), "games")) {
        object(g, "games");
        m.games.push_back(OpenGame{str(field(g, "code"), "code", 16), variant(field(g, "variant")),
                                   time_control(g), player(field(g, "creator"), "creator"),
                                   side(field(g, "creator_side"), "creator_side"),
                                   opt_bool(g, "rated"), opt_rating(g, "creator_rating")});
    }
    return m;
}

ServerMsg live(const Json& j) {
    Live m;
    for (const Json& g : array(field(j, "games"), "games")) {
        object(g, "games");
        LiveGame e;
        e.code = str(field(g, "code"), "code", 16);
        e.variant = variant(field(g, "variant"));
        e.time_control = time_control(g);
        const Json& players = object(field(g, "players"), "players");
        for (Side s : {Side::Silver, Side::Bronze})
            if (auto* p = opt_field(players, std::string(side_name(s)).c_str()))
                e.players[idx(s)] = player(*p, "players");
        e.turns = count(field(g, "turns"), "turns");
        e.to_move = side(field(g, "to_move"), "to_move");
        score(field(g, "score"), e.score);
        e.spectators = count(field(g, "spectators"), "spectators");
        if (auto* away = opt_field(g, "away")) {
            object(*away, "away");
            e.away[0] = boolean(field(*away, "silver"), "silver");
            e.away[1] = boolean(field(*away, "bronze"), "bronze");
        }
        e.rated = opt_bool(g, "rated");
        if (auto* r = opt_field(g, "ratings")) {
            object(*r, "ratings");
            e.ratings[0] = opt_rating(*r, "silver");
            e.ratings[1] = opt_rating(*r, "bronze");
        }
        if (auto* st = opt_field(g, "status")) {
            auto s = status_from_name(str(*st, "status"));
            if (!s) bad("unknown status");
            e.status = *s;
        }
        m.games.push_back(std::move(e));
    }
    return m;
}

using Parser = ServerMsg (*)(const Json&);
const std::unordered_map<std::string, Parser>& parsers() {
    static const std::unordered_map<std::string, Parser> m = {
        {"welcome", welcome},
        {"game_created",
         [](const Json& j) -> ServerMsg {
             return GameCreated{str(field(j, "code"), "code", 16), str(field(j, "link"), "link"),
                                opt_str(j, "ref", 64)};
         }},
        {"snapshot", snapshot},
        {"event", event},
        {"ack",
         [](const Json& j) -> ServerMsg {
             return Ack{opt_str(j, "ref", 64), non_negative(field(j, "version"), "version")};
         }},
        {"error", error},
        {"lobby", lobby},
        {"pong", [](const Json&) -> ServerMsg { return Pong{}; }},
        {"shutdown",
         [](const Json& j) -> ServerMsg {
             return Shutdown{str(field(j, "message"), "message", kMaxMessageBytes),
                             non_negative(field(j, "retry_after_ms"), "retry_after_ms")};
         }},
        {"quick_match_waiting",
         [](const Json& j) -> ServerMsg {
             return QuickMatchWaiting{variant(field(j, "variant")), time_control(j),
                                      opt_bool(j, "rated")};
         }},
        {"quick_match_cancelled", [](const Json&) -> ServerMsg { return QuickMatchCancelled{}; }},
        {"matched",
         [](const Json& j) -> ServerMsg {
             return Matched{str(field(j, "code"), "code", 16), str(field(j, "link"), "link"),
                            side(field(j, "side"), "side")};
         }},
        {"live", live},
        {"notification",
         [](const Json& j) -> ServerMsg {
             non_negative(field(j, "id"), "id");
             str(field(j, "kind"), "kind", 64);
             Json item = j;
             item.erase("type");
             return Notification{std::move(item)};
         }},
    };
    return m;
}

}  // namespace

std::optional<Result> parse_result(const Json& j) {
    try {
        return result(j);
    } catch (const Fail&) {
        return std::nullopt;
    }
}

std::variant<ServerMsg, Error> parse_server(const Json& j) {
    return parse_typed(j, parsers());
}

std::variant<ServerMsg, Error> parse_server(std::string_view text) {
    return parse_text<ServerMsg>(text, [](const Json& j) { return parse_server(j); });
}

}  // namespace tf::proto
