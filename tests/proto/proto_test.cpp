// The typed server -> client protocol: every message survives to_text -> parse_server unchanged,
// to_text writes exactly what nlohmann::json would dump for the same value (sorted keys, the
// same escaping), the rules' values are written as the rules library writes them, the event
// kinds are the schema's, and malformed messages get an error, never an exception.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "common/bot.h"
#include "common/json.h"
#include "common/playout.h"
#include "proto/json_writer.h"
#include "proto/messages.h"

namespace tf::proto {
namespace {

using nlohmann::json;

template <class T>
T round_trip(const T& m) {
    const std::string text = to_text(m);
    // Byte for byte what a dumped tree says: keys sorted, compact, escaped alike.
    CHECK(json::parse(text).dump() == text);
    auto parsed = parse_server(text);
    REQUIRE_MESSAGE(std::holds_alternative<ServerMsg>(parsed),
                    text << " -> " << std::get<Error>(parsed).message);
    auto* back = std::get_if<T>(&std::get<ServerMsg>(parsed));
    REQUIRE(back);
    CHECK(to_text(*back) == text);
    return *back;
}

// A game played a few turns in, by random elephant moves or by the bot (whose turns include
// guardian moves and captures): its turns, setups and state.
struct Played {
    Game game{Variant{}};
    Setup setup[2];
    std::vector<Turn> turns;
    std::vector<TurnEv> events;
};
Played play(std::uint64_t seed, int turns, bool bot = false) {
    Played p;
    Rng rng(seed);
    for (Side s : {Side::Silver, Side::Bronze}) {
        p.setup[idx(s)] = random_setup(p.game, rng);
        REQUIRE(!p.game.apply_setup(s, p.setup[idx(s)]));
    }
    for (int i = 0; i < turns && !p.game.over(); ++i) {
        MoveList ml;
        p.game.generate(ml);
        Turn t = ml.size == 0 ? Turn{} : p.game.to_turn(ml[int(rng.below(std::uint32_t(ml.size)))]);
        if (bot) {
            BotOptions o;
            o.level = 1;
            o.seed = seed * 1000 + std::uint64_t(i);
            auto b = bot_turn(p.game, o);
            REQUIRE(bool(b));
            t = *b;
        }
        Game before = p.game;
        Side mover = p.game.to_move();
        REQUIRE(!p.game.apply_turn(t));
        p.turns.push_back(t);
        p.events.push_back(TurnEv{mover, t, captures_of(before, p.game, t)});
        // Each capture is one the rules counted: for the captured elephant's opponent.
        int counted[2] = {0, 0};
        for (const Captured& c : p.events.back().captures) ++counted[idx(~c.side)];
        for (Side s : {Side::Silver, Side::Bronze})
            CHECK(p.game.stats(s).captured - before.stats(s).captured == counted[idx(s)]);
    }
    return p;
}

}  // namespace

TEST_CASE("proto: every server message round-trips and dumps like a JSON tree") {
    round_trip(Welcome{"p1", std::string(48, 'a'), "ann \"é\"\n", {"k3v9qa", "x"}});
    round_trip(Welcome{"p1",
                       std::string(48, 'a'),
                       "Ann",
                       {},
                       {1},
                       AccountInfo{"Ann", {{"blitz", {1712, 64, 31, false}}, {"untimed", {}}}},
                       "r7"});
    round_trip(GameCreated{"k3v9qa", "/g/k3v9qa"});
    round_trip(Ack{"t7", 13});
    round_trip(Ack{std::nullopt, 1});
    round_trip(ErrorMsg{Err::IllegalTurn, "no\ttab\x01", "r", 12, "step_shape"});
    round_trip(ErrorMsg{Err::StoreFailed, "saved", std::nullopt, std::nullopt, std::nullopt});
    round_trip(ErrorMsg{Err::NotYourTurn, "wait", "t1", 3, std::nullopt, "abc234"});
    round_trip(Pong{});
    round_trip(Shutdown{"bye", 2000});
    round_trip(QuickMatchWaiting{Variant{7, 3, 2, 30}, TimeControl{180000, 2000}});
    round_trip(QuickMatchWaiting{Variant{}, std::nullopt});
    round_trip(QuickMatchCancelled{});
    round_trip(Matched{"abc234", "/g/abc234", Side::Bronze});
    Lobby lobby;
    lobby.games.push_back(
        OpenGame{"abc234", Variant{}, std::nullopt, PlayerRef{"p1", "ann"}, Side::Bronze});
    lobby.games.push_back(OpenGame{
        "k3v9qa", Variant{11, 7, 3, 40}, TimeControl{60000, 0}, {"p2", "b"}, Side::Silver});
    round_trip(lobby);
    round_trip(Lobby{});
    Live live;
    LiveGame g;
    g.code = "abc234";
    g.players[0] = PlayerRef{"p1", "ann"};
    g.turns = 14;
    g.to_move = Side::Bronze;
    g.score[0] = 3;
    g.spectators = 2;
    g.status = GameStatus::Suspended;
    g.away[1] = true;
    live.games.push_back(g);
    round_trip(live);
}

TEST_CASE("proto: every event kind round-trips with its payload") {
    Played p = play(11, 30);
    ClockReading clocks{58120, 60000, Side::Silver, 1767000000000};
    std::vector<EventBody> bodies = {
        JoinEv{Side::Bronze, {"p2", "bob"}},
        JoinEv{Side::Bronze, {"p2", "robo", true}},  // a bot account
        SetupEv{Side::Silver, p.setup[0]},
        p.events.back(),
        ResignEv{Side::Bronze},
        DrawOfferEv{Side::Silver},
        DrawDeclineEv{Side::Bronze},
        DrawAcceptEv{Side::Silver},
        TimeoutEv{Side::Bronze},
        PlayerBackEv{Side::Silver},
        PlayerLeftEv{Side::Bronze, 1767000060000, 1767000120000},
        AbandonEv{Side::Silver, true},
        AbortEv{AbortReason::Abandoned, std::nullopt},
        AbortEv{AbortReason::Player, Side::Bronze},
        GameOverEv{result_of(p.game)},
        GameOverEv{aborted_result(p.game)},
        ChatEv{{"p1", "ann"}, "gl \\ hf \u00e9 \x1f"},
        CancelEv{},
        CancelEv{"later"},
        SpectatorsEv{5000},
        ChatEv{{"p3", "cat"}, "hi", ChatRoom::Spectators},
        RematchOfferEv{Side::Bronze},
        RematchDeclineEv{Side::Silver},
        RematchEv{"k3v9qa"},
        RatingsEv{"blitz", {RatingChange{1500, {1662, 290, 1, true}}, std::nullopt}},
        TakebackOfferEv{Side::Bronze},
        TakebackDeclineEv{Side::Silver},
        TakebackEv{Side::Bronze, 2},
        TimeGivenEv{Side::Silver, 15000},
        PreferencesEv{Side::Bronze, SeatPrefs{false, true}},
        StallingEv{Side::Bronze},
        StallClaimEv{Side::Silver, true},
        VacationEv{Side::Bronze, true},
        VacationEv{Side::Silver, false},
        BerserkEv{Side::Bronze},
        HiddenEv{},
        ChatEv{{"p1", "ann"}, "shadowed", ChatRoom::Players, true},
    };
    std::set<std::string_view> kinds;
    for (auto& b : bodies) {
        Event e{"abc234", 17, b, clocks};
        CHECK(round_trip(e) == e);
        kinds.insert(event_kind(b));
        Event untimed{"abc234", 18, b, std::nullopt};
        CHECK(round_trip(untimed) == untimed);
    }
    CHECK(kinds.size() == std::size(kEventKinds));  // every kind was tried
    // A kind from a newer server still parses, as UnknownEv.
    auto u = parse_server(std::string_view(
        R"({"type":"event","game":"abc234","version":3,"kind":"fireworks","payload":{"x":1},"clocks":null})"));
    REQUIRE(std::holds_alternative<ServerMsg>(u));
    auto& ev = std::get<Event>(std::get<ServerMsg>(u));
    CHECK(std::get<UnknownEv>(ev.body).kind == "fireworks");
    CHECK(!changes_game(ev.body));
}

TEST_CASE("proto: a snapshot round-trips with the game state, record, seats and clocks") {
    Played p = play(5, 25);
    SnapshotMsg m;
    m.game = "abc234";
    m.version = 40;
    m.status = GameStatus::Playing;
    m.state = p.game;
    TimeControl arena{300000, 2000};
    arena.berserk = true;  // an arena's game (PROTOCOL.md "Tournaments" (Berserk))
    m.record = {Variant{}, arena, {p.setup[0], p.setup[1]}, p.turns};
    m.players[0] = Seat{{"p1", "ann"}, std::nullopt};
    m.players[1] = Seat{{"p2", "robo", true}, Away{1767000060000, 1767000120000}};  // a bot
    m.clocks = ClockReading{1, 2, std::nullopt, 3};
    m.spectators = 2;
    m.draw_offer = Side::Bronze;
    m.takeback_offer = Side::Silver;
    m.stalling = Side::Bronze;
    m.preferences[1] = SeatPrefs{false, false};
    m.is_public = false;
    m.vacation[1] = true;
    m.berserk[0] = true;
    m.chat = {ChatEv{{"p1", "ann"}, "gl", ChatRoom::Players},
              ChatEv{{"p3", "cat"}, "go ann", ChatRoom::Spectators}};
    SnapshotMsg back = round_trip(m);
    CHECK(!back.is_public);
    CHECK(back.chat == m.chat);
    CHECK(back.record == m.record);
    CHECK(back.players[1] == m.players[1]);
    CHECK(state_to_json(back.state) == state_to_json(p.game));
    CHECK(back.draw_offer == Side::Bronze);
    CHECK(back.takeback_offer == Side::Silver);
    CHECK(back.stalling == Side::Bronze);
    CHECK(back.preferences[0] == SeatPrefs{true, true});
    CHECK(back.preferences[1] == SeatPrefs{false, false});
    CHECK(!back.vacation[0]);
    CHECK(back.vacation[1]);
    CHECK(back.berserk[0]);
    CHECK(!back.berserk[1]);
    CHECK(back.record.time_control->berserk);
    CHECK(to_text(m).find(R"("berserk":["silver"])") != std::string::npos);
    SnapshotMsg open;  // a fresh game: free seat, no setups, untimed
    open.game = "k3v9qa";
    open.players[0] = Seat{{"p1", "ann"}, std::nullopt};
    CHECK(to_text(open).find("vacation") == std::string::npos);  // nobody on vacation: absent
    CHECK(to_text(open).find("berserk") == std::string::npos);   // nobody berserk: absent
    CHECK(to_text(open).find("bot") == std::string::npos);       // a person: no "bot"
    CHECK(to_text(m).find(R"("bot":true,"id":"p2")") != std::string::npos);
    round_trip(open);
}

TEST_CASE("proto: rules values are written byte for byte as the rules library writes them") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        Played p = play(seed, 200, seed % 2 == 0);
        for (const Turn& t : p.turns) {
            std::string out;
            JsonWriter w(out);
            write(w, t);
            CHECK(out == to_json(t).dump());
        }
        for (const Setup& s : p.setup) {
            std::string out;
            JsonWriter w(out);
            write(w, s);
            CHECK(out == to_json(s).dump());
        }
    }
    std::string out;
    JsonWriter w(out);
    write(w, Variant{13, 11, 9, 1000});
    CHECK(out == to_json(Variant{13, 11, 9, 1000}).dump());
    // Strings: every control character, quotes, backslashes and UTF-8 as nlohmann escapes them.
    std::string all;
    for (int c = 1; c < 128; ++c) all += char(c);
    all += "\u00e9\u20ac\U0001F418";
    out.clear();
    JsonWriter(out).value(all);
    CHECK(out == json(all).dump());
}

TEST_CASE("proto: captures name the elephants a turn's guardians took") {
    int found = 0;
    for (std::uint64_t seed = 1; seed <= 60 && found < 5; ++seed) {
        Played p = play(seed, 300, true);
        for (const TurnEv& e : p.events)
            for (const Captured& c : e.captures) {
                CHECK(p.game.variant().on_board(c.cell));
                ++found;
            }
    }
    CHECK(found >= 5);  // random games do capture
}

TEST_CASE("proto: the event kinds are the schema's, both ways") {
    std::ifstream in(std::string(TF_PROTO_SCHEMA_DIR) + "/event.json");
    REQUIRE(in);
    json schema = json::parse(in);
    std::set<std::string> in_schema, in_code;
    for (const auto& k : schema["properties"]["kind"]["enum"])
        in_schema.insert(k.get<std::string>());
    for (auto k : kEventKinds) in_code.insert(std::string(k));
    CHECK(in_schema == in_code);
}

TEST_CASE("proto: malformed server messages are errors, never exceptions") {
    const char* bad[] = {
        "",
        "[]",
        "{}",
        R"({"type":5})",
        R"({"type":"nope"})",
        R"({"type":"ack"})",
        R"({"type":"ack","version":"1"})",
        R"({"type":"ack","version":-1})",
        R"({"type":"event","game":"a","version":1,"kind":"turn","payload":{},"clocks":null})",
        R"({"type":"event","game":"a","version":1,"kind":"turn","payload":{"side":"green","turn":{}},"clocks":null})",
        R"({"type":"event","game":"a","version":1,"kind":"join","payload":[],"clocks":null})",
        R"({"type":"event","game":"a","version":1,"kind":"abort","payload":{"reason":"x"},"clocks":null})",
        R"({"type":"event","game":"a","version":1,"kind":"game_over","payload":{"over":true,"reason":"nope","score":{"silver":0,"bronze":0}},"clocks":null})",
        R"({"type":"event","game":"a","version":1,"kind":"chat","payload":{"from":{"id":"p"},"text":"x"},"clocks":{"at":1}})",
        R"({"type":"snapshot","game":"a","version":1,"status":"paused"})",
        R"({"type":"snapshot","game":"a","version":1,"status":"open","state":{},"record":{}})",
        R"({"type":"error","code":"no_such_code","message":"x"})",
        R"({"type":"live","games":[{"code":"a"}]})",
        R"({"type":"welcome","player_id":"p","token":"t","name":"n","games":[1],"versions":[1]})",
    };
    for (const char* text : bad) {
        INFO(text);
        auto r = parse_server(std::string_view(text));
        CHECK(std::holds_alternative<Error>(r));
    }
}

}  // namespace tf::proto

namespace tf::proto {

TEST_CASE("proto: account requests, their limits and the rating categories") {
    auto parsed = [](const std::string& text) { return parse_client(std::string_view(text)); };
    auto err = [&](const std::string& text) {
        auto r = parsed(text);
        REQUIRE(std::holds_alternative<Error>(r));
        return std::get<Error>(r);
    };
    auto ok = parsed(R"({"type":"register","username":"Ann_1","password":"12345678","ref":"r1"})");
    REQUIRE(std::holds_alternative<ClientMsg>(ok));
    auto& reg = std::get<Register>(std::get<ClientMsg>(ok));
    CHECK(reg.username == "Ann_1");
    CHECK(reg.ref == "r1");
    auto bad = err(R"({"type":"register","username":"a b","password":"12345678","ref":"r2"})");
    CHECK(bad.code == Err::BadUsername);
    CHECK(bad.ref == "r2");
    CHECK(err(R"({"type":"register","username":"ab","password":"12345678"})").code ==
          Err::BadUsername);
    CHECK(err(R"({"type":"register","username":"-ann","password":"12345678"})").code ==
          Err::BadUsername);
    CHECK(err(R"({"type":"register","username":"ann","password":"short"})").code ==
          Err::WeakPassword);
    // A login may try any name and any password: a wrong one is bad_credentials later.
    CHECK(std::holds_alternative<ClientMsg>(
        parsed(R"({"type":"login","username":"a b","password":"x"})")));
    CHECK(err(R"({"type":"change_password","password":"x","new_password":"short"})").code ==
          Err::WeakPassword);
    auto out = parsed(R"({"type":"logout","everywhere":true})");
    REQUIRE(std::holds_alternative<ClientMsg>(out));
    CHECK(std::get<Logout>(std::get<ClientMsg>(out)).everywhere);
    CHECK(err(R"({"type":"logout","everywhere":1})").code == Err::BadMessage);
    CHECK(is_username("abc"));
    CHECK(is_username("A-b_9"));
    CHECK(!is_username(std::string(21, 'a')));
    CHECK(!is_username("ann\xc3\xa9"));

    // Categories: lichess's estimate (initial + 40 increments), two boards, nothing else.
    auto cat = [](Variant v, std::optional<TimeControl> tc) {
        return rating_category(v, tc).value_or("-");
    };
    const Variant standard{}, small{7, 3, 2, 30}, odd{9, 4, 3, 40};
    CHECK(cat(standard, TimeControl{60'000, 1'000}) == "bullet");  // 100 s
    CHECK(cat(standard, TimeControl{180'000, 0}) == "blitz");      // 180 s
    CHECK(cat(standard, TimeControl{300'000, 3'000}) == "blitz");  // 420 s
    CHECK(cat(standard, TimeControl{600'000, 0}) == "rapid");
    CHECK(cat(standard, TimeControl{1'500'000, 0}) == "classical");
    CHECK(cat(standard, std::nullopt) == "untimed");
    CHECK(cat(small, TimeControl{180'000, 2'000}) == "small_blitz");
    CHECK(cat(odd, TimeControl{180'000, 2'000}) == "-");
    for (const auto& c : rating_categories()) CHECK(is_rating_category(c));
    CHECK(!is_rating_category("bullet2"));
}

}  // namespace tf::proto

namespace tf::proto {

TEST_CASE("proto: game codes are case-insensitive") {
    auto msg = [](const std::string& text) { return parse_client(std::string_view(text)); };
    auto join = msg(R"({"type":"join_game","code":"K3v9QA"})");
    REQUIRE(std::holds_alternative<ClientMsg>(join));
    CHECK(std::get<JoinGame>(std::get<ClientMsg>(join)).code == "k3v9qa");
    auto watch = msg(R"({"type":"watch","code":"ABC234"})");
    REQUIRE(std::holds_alternative<ClientMsg>(watch));
    CHECK(std::get<Watch>(std::get<ClientMsg>(watch)).code == "abc234");
    CHECK(std::holds_alternative<Error>(msg(R"({"type":"join_game","code":"AB-C"})")));
    CHECK(game_code("K3V9QA") == "k3v9qa");
    CHECK(!game_code("k3v9q!"));
    CHECK(!game_code(""));
}

}  // namespace tf::proto

namespace tf::proto {

TEST_CASE("proto: challenges and notifications") {
    auto parsed = [](const std::string& text) { return parse_client(std::string_view(text)); };
    auto ok = parsed(
        R"({"type":"create_game","time_control":null,"color":"random","public":false,"to":"Bob_2"})");
    REQUIRE(std::holds_alternative<ClientMsg>(ok));
    CHECK(std::get<CreateGame>(std::get<ClientMsg>(ok)).to == "Bob_2");
    CHECK(to_json(std::get<CreateGame>(std::get<ClientMsg>(ok)))["to"] == "Bob_2");
    auto bad = parsed(
        R"({"type":"create_game","time_control":null,"color":"random","public":false,"to":"a b"})");
    REQUIRE(std::holds_alternative<Error>(bad));
    CHECK(std::get<Error>(bad).code == Err::UnknownPlayer);

    auto d = parsed(R"({"type":"decline_challenge","game":"ABC234","reason":"too_fast"})");
    REQUIRE(std::holds_alternative<ClientMsg>(d));
    const auto& dc = std::get<DeclineChallenge>(std::get<ClientMsg>(d));
    CHECK(dc.game == "abc234");
    CHECK(dc.reason == "too_fast");
    CHECK(game_of(std::get<ClientMsg>(d)) == "abc234");
    auto plain = parsed(R"({"type":"decline_challenge","game":"abc234"})");
    CHECK(std::get<DeclineChallenge>(std::get<ClientMsg>(plain)).reason == "generic");
    auto unknown = parsed(R"({"type":"decline_challenge","game":"abc234","reason":"rude"})");
    REQUIRE(std::holds_alternative<Error>(unknown));
    CHECK(std::get<Error>(unknown).code == Err::BadMessage);

    round_trip(Notification{Json{{"id", 7},
                                 {"kind", "challenge"},
                                 {"at", 1767000000000},
                                 {"read", false},
                                 {"game", "abc234"},
                                 {"from", {{"id", "p1"}, {"name", "ann"}}}}});
    auto n = parse_server(std::string_view(R"({"type":"notification","kind":"challenge"})"));
    CHECK(std::holds_alternative<Error>(n));  // no id
}

TEST_CASE("proto: resign, chat and the draw messages take a ref, and error codes read back") {
    auto parsed = [](const std::string& text) {
        auto p = parse_client(std::string_view(text));
        REQUIRE(std::holds_alternative<ClientMsg>(p));
        return std::get<ClientMsg>(p);
    };
    auto r = parsed(R"({"type":"resign","game":"abc234","ref":"r1"})");
    CHECK(std::get<Resign>(r).ref == "r1");
    CHECK(to_json(std::get<Resign>(r))["ref"] == "r1");
    CHECK(!std::get<Resign>(parsed(R"({"type":"resign","game":"abc234"})")).ref);
    CHECK(!to_json(Resign{"abc234"}).contains("ref"));
    auto c = parsed(R"({"type":"chat","game":"abc234","text":"gl","ref":"c1"})");
    CHECK(std::get<Chat>(c).ref == "c1");
    CHECK(to_json(std::get<Chat>(c))["ref"] == "c1");
    CHECK(std::get<DrawOffer>(parsed(R"({"type":"draw_offer","game":"a1","ref":"d"})")).ref == "d");
    CHECK(std::get<DrawAccept>(parsed(R"({"type":"draw_accept","game":"a1","ref":"d"})")).ref ==
          "d");
    CHECK(to_json(DrawDecline{"a1", "d"})["ref"] == "d");
    const std::string too_long =
        R"({"type":"resign","game":"a1","ref":")" + std::string(65, 'x') + R"("})";
    auto long_ref = parse_client(std::string_view(too_long));
    CHECK(std::holds_alternative<Error>(long_ref));
    for (std::size_t i = 0; i < kErrCount; ++i) CHECK(err_from_name(err_name(Err(i))) == Err(i));
    CHECK(!err_from_name("no_such_code"));
}

TEST_CASE("proto: correspondence time controls") {
    auto parsed = [](const std::string& text) { return parse_client(std::string_view(text)); };
    auto create = [&](const std::string& tc) {
        return parsed(R"({"type":"create_game","time_control":)" + tc +
                      R"(,"color":"silver","public":true})");
    };
    for (int d : kCorrespondenceDays) {
        auto ok = create(R"({"days_per_move":)" + std::to_string(d) + "}");
        REQUIRE(std::holds_alternative<ClientMsg>(ok));
        const auto& tc = std::get<CreateGame>(std::get<ClientMsg>(ok)).time_control;
        REQUIRE(tc);
        CHECK(tc->correspondence());
        CHECK(*tc == TimeControl{0, 0, d});
        CHECK(to_json(*tc) == Json{{"days_per_move", d}});
    }
    for (const char* bad :
         {R"({"days_per_move":4})", R"({"days_per_move":0})", R"({"days_per_move":-1})",
          R"({"days_per_move":"3"})", R"({"days_per_move":3,"initial_ms":60000})",
          R"({"days_per_move":3,"increment_ms":0})"}) {
        auto e = create(bad);
        REQUIRE(std::holds_alternative<Error>(e));
        CHECK(std::get<Error>(e).code == Err::BadMessage);
    }
    // Both writers (the tree and the streaming one) and the server parser agree.
    round_trip(QuickMatchWaiting{Variant{}, TimeControl{0, 0, 3}});
    CHECK(rating_category(Variant{}, TimeControl{0, 0, 14}) == "correspondence");
    CHECK(rating_category(Variant{7, 3, 2, 30}, TimeControl{0, 0, 1}) == "small_correspondence");
    CHECK(is_rating_category("correspondence"));
    CHECK(!correspondence_days(4));
}

}  // namespace tf::proto
