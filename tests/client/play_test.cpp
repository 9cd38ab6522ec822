// The terminal client's logic without a terminal or a socket: Session driven through a fake Io
// with real rules-library states, the input parsers, the board drawing, and hostile server
// messages and keyboard input that must never make it throw or misbehave.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/notation.h"
#include "common/playout.h"
#include "play_input.h"
#include "play_notices.h"
#include "play_session.h"
#include "play_term.h"
#include "play_view.h"

using namespace tf;
using namespace tf::play;
using Json = nlohmann::json;

namespace {

struct FakeIo : Session::Io {
    std::vector<Json> sent;
    std::string out;
    std::string token;
    bool online = true;
    bool quitted = false;
    bool send(const Json& j) override {
        if (!online) return false;
        sent.push_back(j);
        return true;
    }
    void print(const std::string& t) override { out += t + "\n"; }
    void save_token(const std::string& t) override { token = t; }
    void quit() override { quitted = true; }
    // Everything printed since the last call.
    std::string take() { return std::exchange(out, ""); }
};

Json record_json(const Game& g, const Json& silver, const Json& bronze, const Json& turns) {
    return {{"variant", to_json(g.variant())},
            {"setup", {{"silver", silver}, {"bronze", bronze}}},
            {"turns", turns},
            {"time_control", nullptr}};
}

Json snapshot_json(const std::string& code, std::int64_t version, const std::string& status,
                   const Game& g, const Json& record, const Json& players) {
    return {{"type", "snapshot"},        {"game", code},
            {"version", version},        {"status", status},
            {"state", state_to_json(g)}, {"record", record},
            {"players", players},        {"clocks", nullptr},
            {"spectators", 0},           {"draw_offer", nullptr}};
}

Json event_json(const std::string& code, std::int64_t version, const std::string& kind,
                const Json& payload) {
    return {{"type", "event"}, {"game", code},       {"version", version},
            {"kind", kind},    {"payload", payload}, {"clocks", nullptr}};
}

Session::Options plain_options() {
    Session::Options o;
    o.name = "ann";
    o.seed = 5;
    return o;
}

// The two-character content of a field or ring cell on an ASCII, colourless board.
std::string cell_on_board(const std::string& board, int size, Cell c) {
    std::vector<std::string> lines;
    std::size_t start = 0, nl;
    while ((nl = board.find('\n', start)) != std::string::npos) {
        lines.push_back(board.substr(start, nl - start));
        start = nl + 1;
    }
    // line 0: header; line 1: north ring (y = size + 1); ...; line size + 2: south ring (y = 0)
    const std::string& line = lines.at(std::size_t(size + 2 - c.y));
    std::string cell = line.substr(std::size_t(4 + 3 * c.x), 3);
    return cell.substr(
        cell.find_first_not_of(' ') == std::string::npos ? 3 : cell.find_first_not_of(' '));
}

}  // namespace

TEST_CASE("play: a game from create to game over, as silver") {
    FakeIo io;
    Session s(io, plain_options());
    s.on_connected();
    REQUIRE(io.sent.size() == 1);
    CHECK(io.sent[0] == Json{{"type", "hello"}, {"version", 1}, {"name", "ann"}});
    s.on_message(
        R"({"type":"welcome","player_id":"p1","token":"tok1","name":"ann","versions":[1],"games":[]})");
    CHECK(s.welcomed());
    CHECK(io.token == "tok1");

    s.on_command("create size=7 time=5+3 side=silver private");
    REQUIRE(io.sent.size() == 2);
    const Json& create = io.sent[1];
    CHECK(create["type"] == "create_game");
    CHECK(create["variant"]["size"] == 7);
    CHECK(create["time_control"] == Json{{"initial_ms", 300000}, {"increment_ms", 3000}});
    CHECK(create["color"] == "silver");
    CHECK(create["public"] == false);

    s.on_message(R"({"type":"game_created","code":"abc234","link":"/g/abc234"})");
    CHECK(io.take().find("Game created: abc234") != std::string::npos);

    Variant v;
    v.size = 7;
    Game g(v);
    const Json silver_p = {{"id", "p1"}, {"name", "ann"}};
    const Json bronze_p = {{"id", "p2"}, {"name", "bob"}};
    s.on_message(snapshot_json("abc234", 0, "open", g,
                               record_json(g, nullptr, nullptr, Json::array()),
                               {{"silver", silver_p}, {"bronze", nullptr}})
                     .dump());
    CHECK(s.view().me == Side::Silver);
    CHECK(io.take().find("join abc234") != std::string::npos);
    s.on_message(
        event_json("abc234", 1, "join", {{"side", "bronze"}, {"player", bronze_p}}).dump());
    CHECK(io.take().find("Your setup: 5 cells of b1..g1") != std::string::npos);

    // A setup with a cell off the board or in the wrong zone is refused locally.
    io.sent.clear();
    s.on_command("setup b1 c1 e1 f1 h1 | Sa W3");
    CHECK(io.take().find("'h1' is not a cell") != std::string::npos);
    s.on_command("setup a2 c1 e1 f1 g1 | Sa W3");
    CHECK(io.take().find("Illegal setup (setup_zone)") != std::string::npos);
    CHECK(io.sent.empty());

    s.on_command("setup b1 c1 e1 f1 g1 | Sa W3");
    REQUIRE(io.sent.size() == 1);
    Setup ss{{{2, 1}, {3, 1}, {5, 1}, {6, 1}, {7, 1}}, {{1, 0}, {0, 3}}};
    CHECK(io.sent[0]["type"] == "setup");
    CHECK(io.sent[0]["setup"] == to_json(ss));
    CHECK(io.sent[0]["version"] == 1);
    s.on_message(R"({"type":"ack","ref":")" + io.sent[0]["ref"].get<std::string>() +
                 R"(","version":2})");
    s.on_message(
        event_json("abc234", 2, "setup", {{"side", "silver"}, {"setup", to_json(ss)}}).dump());
    Setup bs{{{1, 2}, {1, 4}, {1, 5}, {1, 6}, {1, 7}}, {{8, 8}, {8, 0}}};
    s.on_message(
        event_json("abc234", 3, "setup", {{"side", "bronze"}, {"setup", to_json(bs)}}).dump());
    std::string screen = io.take();
    CHECK(screen.find("turn 1: silver to move (you)") != std::string::npos);
    CHECK(screen.find("crossings: a3") != std::string::npos);

    // Locally rejected turns send nothing and show the library's message.
    io.sent.clear();
    s.on_command("b1-b4");
    CHECK(io.take().find("Illegal turn (step_shape)") != std::string::npos);
    s.on_command("c1-c2:N");
    CHECK(io.take().find("Illegal turn (facing_not_allowed)") != std::string::npos);
    s.on_command("b1-q9");
    CHECK(io.take().find("Cannot read that turn") != std::string::npos);
    CHECK(io.sent.empty());

    // moves lists the elephant's moves in notation.
    s.on_command("moves b1");
    std::string moves = io.take();
    CHECK(moves.find("b1-b2") != std::string::npos);
    CHECK(moves.find("b1-d1:F") != std::string::npos);
    s.on_command("moves a2");
    CHECK(io.take().find("bronze's, and silver is to move") != std::string::npos);

    s.on_command("b1-b2");
    REQUIRE(io.sent.size() == 1);
    CHECK(io.sent[0]["type"] == "turn");
    CHECK(io.sent[0]["version"] == 3);
    CHECK(io.sent[0]["turn"] ==
          to_json(Turn{ElephantMove{{2, 1}, {{2, 2}}, std::nullopt}, std::nullopt, {}}));
    // The server refuses it anyway: its message is shown.
    s.on_message(Json{
        {"type", "error"},
        {"code", "stale_version"},
        {"message", "stale"},
        {"ref", io.sent[0]["ref"]},
        {"version",
         3}}.dump());
    CHECK(io.take().find("The server refused the turn b1-b2: stale (stale_version)") !=
          std::string::npos);

    s.on_message(
        event_json("abc234", 4, "turn", {{"side", "silver"}, {"turn", io.sent[0]["turn"]}}).dump());
    screen = io.take();
    CHECK(screen.find("last turn 1 (silver): b1-b2") != std::string::npos);
    CHECK(screen.find("turn 2: bronze to move") != std::string::npos);
    CHECK(s.view().history == std::vector<std::string>{"b1-b2"});
    io.sent.clear();
    s.on_command("c1-c2");
    CHECK(io.take().find("It is bronze's turn") != std::string::npos);
    CHECK(io.sent.empty());

    // A duplicate or old event changes nothing; a gap asks for the missing events.
    s.on_message(event_json("abc234", 4, "turn",
                            {{"side", "silver"}, {"turn", io.sent.empty() ? Json() : Json()}})
                     .dump());
    CHECK(s.view().version == 4);
    s.on_message(event_json("abc234", 9, "chat", {{"from", bronze_p}, {"text", "hi"}}).dump());
    REQUIRE(io.sent.size() == 1);
    CHECK(io.sent[0] == Json{{"type", "watch"}, {"code", "abc234"}, {"since_version", 4}});
    io.sent.clear();

    // Chat with terminal escapes is printed harmlessly.
    s.on_message(event_json("abc234", 5, "chat",
                            {{"from", {{"id", "p2"}, {"name", "b\x1b[31mob"}}},
                             {"text", "gl \x1b]0;pwned\x07 hf"}})
                     .dump());
    std::string chat = io.take();
    CHECK(chat.find('\x1b') == std::string::npos);
    CHECK(chat.find("gl ?]0;pwned? hf") != std::string::npos);

    // Draw offer from bronze, accepted by `draw`; resign needs a confirmation.
    s.on_message(event_json("abc234", 6, "draw_offer", {{"side", "bronze"}}).dump());
    CHECK(io.take().find("bronze offers a draw") != std::string::npos);
    s.on_command("draw");
    REQUIRE(io.sent.size() == 1);
    CHECK(io.sent[0] == Json{{"type", "draw_accept"}, {"game", "abc234"}});
    io.sent.clear();
    s.on_command("resign");
    s.on_command("no");
    CHECK(io.sent.empty());
    s.on_command("resign");
    s.on_command("yes");
    REQUIRE(io.sent.size() == 1);
    CHECK(io.sent[0] == Json{{"type", "resign"}, {"game", "abc234"}});

    s.on_message(event_json("abc234", 7, "resign", {{"side", "silver"}}).dump());
    s.on_message(event_json("abc234", 8, "game_over",
                            {{"over", true},
                             {"reason", "resign"},
                             {"winner", "bronze"},
                             {"score", {{"silver", 1}, {"bronze", 0}}},
                             {"to_move", nullptr}})
                     .dump());
    screen = io.take();
    CHECK(screen.find("GAME OVER: bronze wins (you lose) 1-0: silver resigned") !=
          std::string::npos);
    s.on_command("c1-c2");
    CHECK(io.take().find("The game is over") != std::string::npos);
    s.on_command("quit");
    CHECK(io.quitted);
}

TEST_CASE("play: reconnection resumes the game from the last version seen") {
    FakeIo io;
    Session::Options o = plain_options();
    o.token = "saved";
    Session s(io, o);
    s.on_connected();
    CHECK(io.sent.back() == Json{{"type", "hello"}, {"version", 1}, {"token", "saved"}});
    // An unknown token: a fresh hello with the name.
    s.on_message(R"({"type":"error","code":"bad_token","message":"unknown token"})");
    CHECK(io.sent.back() == Json{{"type", "hello"}, {"version", 1}, {"name", "ann"}});
    s.on_message(
        R"({"type":"welcome","player_id":"p1","token":"new","name":"ann","versions":[1],"games":["zz9999"]})");
    CHECK(io.token == "new");
    CHECK(io.sent.back() == Json{{"type", "watch"}, {"code", "zz9999"}});
    Game g{Variant{}};
    s.on_message(snapshot_json("zz9999", 12, "playing", g,
                               record_json(g, nullptr, nullptr, Json::array()),
                               {{"silver", {{"id", "p1"}, {"name", "ann"}}},
                                {"bronze", {{"id", "p2"}, {"name", "x"}}}})
                     .dump());
    CHECK(s.view().version == 12);
    s.on_disconnected("reset");
    io.online = false;
    io.take();
    s.on_command("list");
    CHECK(io.take().find("not connected") != std::string::npos);
    io.online = true;
    s.on_connected();
    CHECK(io.sent.back() == Json{{"type", "hello"}, {"version", 1}, {"token", "new"}});
    s.on_message(
        R"({"type":"welcome","player_id":"p1","token":"new","name":"ann","versions":[1],"games":["zz9999"]})");
    CHECK(io.sent.back() == Json{{"type", "watch"}, {"code", "zz9999"}, {"since_version", 12}});
}

TEST_CASE("play: option, setup, time and server parsing") {
    std::string err;
    auto o = parse_game_options(
        {"size=5", "elephants=3", "burnt=0", "quiet=2", "time=0.5+1.5", "side=bronze"}, true, err);
    REQUIRE(o);
    CHECK(o->variant == Variant{5, 3, 0, 2});
    CHECK(o->time_control == proto::TimeControl{30000, 1500});
    CHECK(o->color == proto::ColorChoice::Bronze);
    CHECK(describe_time_control(o->time_control) == "0.5+1.5");
    CHECK_FALSE(parse_game_options({"size=4"}, true, err));
    CHECK_FALSE(parse_game_options({"elephants=8"}, true, err));  // E <= N - 2
    CHECK_FALSE(parse_game_options({"size=x"}, true, err));
    CHECK_FALSE(parse_game_options({"size=99999999999"}, true, err));
    CHECK_FALSE(parse_game_options({"time=0+0"}, true, err));
    CHECK_FALSE(parse_game_options({"time=5+-1"}, true, err));
    CHECK_FALSE(parse_game_options({"time=1e9"}, true, err));
    CHECK_FALSE(parse_game_options({"side=green"}, true, err));
    CHECK_FALSE(parse_game_options({"private"}, false, err));
    CHECK(parse_game_options({"time=untimed"}, false, err)->time_control == std::nullopt);

    auto s = parse_setup_words({"b1,c1", "e1|Sa", "|", "NE"}, 9, err);
    REQUIRE(s);
    CHECK(s->elephants == std::vector<Cell>{{2, 1}, {3, 1}, {5, 1}});
    CHECK(s->guardians == std::vector<Cell>{{1, 0}, {10, 10}});
    CHECK_FALSE(parse_setup_words({"b1", "j1"}, 9, err));

    std::string host;
    unsigned short port = 8081;
    CHECK(parse_server("example.org:9000", host, port));
    CHECK((host == "example.org" && port == 9000));
    CHECK(parse_server("[::1]:7", host, port));
    CHECK((host == "::1" && port == 7));
    CHECK(parse_server("localhost", host, port));
    CHECK((host == "localhost" && port == 7));
    for (const char* bad : {"", ":80", "h:", "h:0", "h:65536", "h:x", "::1", "[::1", "[::1]x"})
        CHECK_FALSE(parse_server(bad, host, port));

    CHECK(clean_text("a\x1b[2Jb\tc\x7f") == "a?[2Jb?c?");
    CHECK(clean_text("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(clean_text("\xc2\x9b"
                     "31m") == "??31m");  // C1 CSI
    CHECK(clean_text("\xff\xc3") == "??");
    CHECK(clean_text(std::string(50, 'x'), 10) == std::string(10, 'x') + "...");
}

TEST_CASE("play: correspondence time controls: days per move") {
    std::string err;
    std::optional<proto::TimeControl> tc;
    for (const char* written : {"3d", "3D", "3 days", "3days", "corr:3", "corr3"}) {
        CHECK(parse_time_control(written, tc, err));
        CHECK(tc == proto::TimeControl{0, 0, 3});
    }
    CHECK(parse_time_control("1 day", tc, err));
    CHECK(tc == proto::TimeControl{0, 0, 1});
    CHECK(describe_time_control(tc) == "1 day per move");
    for (int d : proto::kCorrespondenceDays) {
        CHECK(parse_time_control(std::to_string(d) + "d", tc, err));
        CHECK(tc->days_per_move == d);
        if (d > 1) CHECK(describe_time_control(tc) == std::to_string(d) + " days per move");
    }
    for (const char* bad : {"4d", "0d", "15d", "-3d", "3.5d", "corr:", "corr:x", "99999999999d"}) {
        err.clear();
        CHECK_FALSE(parse_time_control(bad, tc, err));
        CHECK(err.find("1, 2, 3, 5, 7, 10 or 14") != std::string::npos);
    }
    CHECK_FALSE(parse_time_control("d", tc, err));
    CHECK(parse_time_control("5+3", tc, err));  // Fischer still
    CHECK(tc == proto::TimeControl{300000, 3000});
    auto o = parse_game_options({"time=7d", "rated"}, true, err);
    REQUIRE(o);
    CHECK(o->time_control == proto::TimeControl{0, 0, 7});
    CHECK(describe_time_control(o->time_control) == "7 days per move");
    CHECK_FALSE(parse_game_options({"time=6d"}, false, err));

    CHECK(time_control_text(Json{{"days_per_move", 14}}) == "14 days per move");
    CHECK(time_control_text(Json{{"days_per_move", 4}}).empty());
    CHECK(time_control_text(Json{{"initial_ms", 300000}, {"increment_ms", 2000}}) == "5+2");
    CHECK(time_control_text(Json(nullptr)) == "untimed");
    CHECK(notification_text(
              {{"kind", "challenge"},
               {"game", "k3v9qa"},
               {"from", {{"id", "p1"}, {"name", "ann"}}},
               {"variant", {{"size", 9}, {"elephants", 5}, {"burnt", 3}, {"quiet", 40}}},
               {"time_control", {{"days_per_move", 3}}}},
              NoticeFor::Shell) ==
          "ann challenges you (9x9, 3 days per move, casual): trunkfield accept k3v9qa");

    const std::int64_t by = 1796000000000;
    const Json turn = {{"kind", "your_turn"},
                       {"game", "k3v9qa"},
                       {"opponent", {{"id", "p2"}, {"name", "bob"}}},
                       {"move_by", by}};
    CHECK(notification_text(turn, NoticeFor::Shell) ==
          "Your turn against bob in k3v9qa (move by " + local_datetime(by) +
              "): trunkfield play, then  watch k3v9qa");
    CHECK(notification_text(turn, NoticeFor::Play) == "Your turn against bob in k3v9qa (move by " +
                                                          local_datetime(by) +
                                                          "): type  watch k3v9qa  to play it");
    CHECK(notification_text({{"kind", "your_turn"}, {"game", "k3v9qa"}, {"opponent", nullptr}},
                            NoticeFor::Shell) ==
          "Your turn in k3v9qa: trunkfield play, then  watch k3v9qa");
    for (const Json& junk : {Json(nullptr), Json(7), Json::array(), Json::object(), Json("x")})
        CHECK_NOTHROW(notification_text(
            {{"kind", "your_turn"}, {"game", junk}, {"opponent", junk}, {"move_by", junk}},
            NoticeFor::Play));

    CHECK(format_days_clock(2 * 86400000 + 23 * 3600000 + 59 * 60000) == "2d 23h");
    CHECK(format_days_clock(5 * 3600000 + 12 * 60000 + 30000) == "5h 12m");
    CHECK(format_days_clock(3600000) == "1h 0m");
    CHECK(format_days_clock(3599000) == "59:59");
    CHECK(format_days_clock(14LL * 86400000) == "14d 0h");
    CHECK(format_days_clock(-1) == "0:00");

    GameView view;
    view.code = "k3v9qa";
    view.status = "playing";
    view.game = Game(Variant{});
    view.time_control = "3 days per move";
    view.clock.timed = true;
    view.clock.correspondence = true;
    view.clock.ms[0] = 3LL * 86400000;
    view.clock.ms[1] = 2LL * 86400000 + 5 * 3600000;
    view.clock.running = Side::Silver;
    view.clock.received = SteadyClock::now();
    const std::string status = render_status(view, Style{}, view.clock.received);
    CHECK(status.find("3 days per move") != std::string::npos);
    CHECK(status.find("clock 3d 0h <") != std::string::npos);
    CHECK(status.find("clock 2d 5h") != std::string::npos);
    CHECK(view.clock.text(Side::Bronze, view.clock.received) == "2d 5h");
    view.clock.correspondence = false;
    CHECK(view.clock.text(Side::Bronze, view.clock.received) == "53:00:00");
}

TEST_CASE("play: a line for each kind of notification, whatever its fields") {
    const Json followed = {
        {"kind", "followed_game"}, {"game", "k3v9qa"}, {"player", {{"id", "p1"}, {"name", "bob"}}}};
    CHECK(notification_text(followed, NoticeFor::Shell) ==
          "bob started a public game k3v9qa (trunkfield play, then  watch k3v9qa)");
    CHECK(notification_text(followed, NoticeFor::Play) ==
          "bob started a public game k3v9qa: type  watch k3v9qa  to watch it");
    CHECK(notification_text({{"kind", "warning"}, {"note", "be kind\x1b[2J"}}, NoticeFor::Shell) ==
          "A moderator warned you: be kind?[2J");
    CHECK(notification_text({{"kind", "warning"}}, NoticeFor::Play) == "A moderator warned you.");
    CHECK(notification_text({{"kind", "report_handled"},
                             {"report", 4},
                             {"player", "cat"},
                             {"outcome", "no_action"}},
                            NoticeFor::Shell) ==
          "Your report #4 about cat was handled: no action taken");
    CHECK(notification_text({{"kind", "report_handled"}, {"outcome", "action_taken"}},
                            NoticeFor::Shell) ==
          "Your report about someone was handled: action taken");
    for (const char* kind : {"followed_game", "warning", "report_handled", "challenge", "new"})
        for (const Json& junk : {Json(nullptr), Json(7), Json::array(), Json::object()})
            CHECK_NOTHROW(notification_text({{"kind", kind},
                                             {"game", junk},
                                             {"player", junk},
                                             {"note", junk},
                                             {"report", junk},
                                             {"outcome", junk}},
                                            NoticeFor::Shell));
}

TEST_CASE("play: the board shows every piece where the rules put it, on every size") {
    Rng rng(11);
    Style st;  // no colour, ASCII
    for (int n = kMinSize; n <= kMaxSize; ++n) {
        Variant v;
        v.size = n;
        v.elephants = std::min(n - 2, 5);
        Game g(v);
        play_random_game(g, rng, 6);
        GameView view;
        view.code = "c";
        view.status = "playing";
        view.game = g;
        const std::string board = render_board(view, st);
        CHECK(std::count(board.begin(), board.end(), '\n') == n + 4);
        for (const auto& e : g.elephants()) {
            std::string want =
                std::string(e.side == Side::Silver ? "S" : "b") + "^>v<"[int(e.facing)];
            CHECK(cell_on_board(board, n, e.cell) == want);
        }
        for (const auto& gd : g.guardians())
            CHECK(cell_on_board(board, n, gd.cell) == (gd.side == Side::Silver ? "Gs" : "Gb"));
        for (Cell c : g.trunk_cells())
            CHECK(cell_on_board(board, n, c) == (g.is_crossing(c) ? "+T" : "T"));
        for (Cell c : g.crossings())
            if (!g.has_trunk(c) && !g.has_burnt(c)) CHECK(cell_on_board(board, n, c) == "+");
        CHECK(render_status(view, st, SteadyClock::now()).find("turn ") != std::string::npos);
    }
}

TEST_CASE("play: clocks count down locally for the running side") {
    ClockView c;
    c.timed = true;
    c.ms[0] = 60000;
    c.ms[1] = 5000;
    c.running = Side::Bronze;
    c.received = SteadyClock::now() - std::chrono::seconds(2);
    CHECK(c.left(Side::Silver, SteadyClock::now()) == 60000);
    CHECK(c.left(Side::Bronze, SteadyClock::now()) <= 3000);
    CHECK(c.left(Side::Bronze, SteadyClock::now() + std::chrono::hours(1)) == 0);
    CHECK(format_clock(61000) == "1:01");
    CHECK(format_clock(3723000) == "1:02:03");
    CHECK(format_clock(-5) == "0:00");
}

TEST_CASE("play: piped input is split into lines") {
    Term t(false);
    std::vector<std::string> lines;
    auto on_line = [&](const std::string& l) { lines.push_back(l); };
    t.feed("create\r\njoin ab", on_line);
    CHECK(lines == std::vector<std::string>{"create"});
    t.feed("c234\n\n", on_line);
    CHECK(lines == std::vector<std::string>{"create", "join abc234", ""});
    auto in = t.end_of_input(on_line);
    CHECK(in.eof);
    CHECK(visible_width("\x1b[1;33mab\x1b[0m\xc3\xa9") == 3);
}

// Mutates one value somewhere inside `j` into something of a random type.
void mutate(Json& j, Rng& rng, int depth = 0) {
    static const Json odd[] = {nullptr,
                               true,
                               -1,
                               0,
                               1,
                               1.5,
                               "x",
                               "silver",
                               "bronze",
                               "N",
                               Json::array(),
                               Json::object(),
                               Json::array({1, 2}),
                               Json::array({Json::array({3, 3})}),
                               std::int64_t(1) << 62,
                               -(std::int64_t(1) << 62),
                               std::uint64_t(-1),
                               std::string(3000, 'z'),
                               "\x1b[2J",
                               Json{{"x", 1}}};
    if ((j.is_object() || j.is_array()) && !j.empty() && depth < 6 && rng.below(4) != 0) {
        auto it = j.begin();
        std::advance(it, rng.below(std::uint32_t(j.size())));
        if (rng.below(8) == 0 && j.is_object()) {
            j.erase(it.key());
            return;
        }
        mutate(*it, rng, depth + 1);
        return;
    }
    j = odd[rng.below(std::uint32_t(std::size(odd)))];
}

TEST_CASE("play: hostile server messages and typing never break the session") {
    Rng rng(2026);
    FakeIo io;
    Session s(io, plain_options());
    s.on_connected();
    s.on_message(
        R"({"type":"welcome","player_id":"p1","token":"t","name":"ann","versions":[1],"games":[]})");
    s.on_command("watch game01");

    // Real positions along a random game, as snapshots and events, then mutated.
    Game g{Variant{}};
    std::vector<Json> base;
    Json turns = Json::array();
    Json setups = Json::object();
    const Json players = {{"silver", {{"id", "p1"}, {"name", "ann"}}},
                          {"bronze", {{"id", "p2"}, {"name", "bob"}}}};
    std::int64_t version = 1;
    for (int i = 0; i < 40 && !g.over(); ++i) {
        Json ev;
        if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
            const Side side = g.to_move();
            Setup st = random_setup(g, rng);
            g.apply_setup(side, st);
            setups[std::string(side_name(side))] = to_json(st);
            ev = event_json("game01", ++version, "setup",
                            {{"side", side_name(side)}, {"setup", to_json(st)}});
        } else {
            MoveList scratch;
            Move m;
            const Side side = g.to_move();
            Turn t = random_move(g, rng, scratch, m) ? g.to_turn(m) : Turn{};
            g.apply_turn(t);
            turns.push_back(to_json(t));
            ev = event_json("game01", ++version, "turn",
                            {{"side", side_name(side)}, {"turn", to_json(t)}});
        }
        base.push_back(ev);
        base.push_back(snapshot_json(
            "game01", version, "playing", g,
            record_json(g, setups.value("silver", Json()), setups.value("bronze", Json()), turns),
            players));
    }
    base.push_back(Json::parse(
        R"({"type":"lobby","games":[{"code":"k3v9qa","variant":{"size":9},"time_control":null,"creator":{"id":"p","name":"a"},"creator_side":"silver"}]})"));
    base.push_back(Json::parse(
        R"({"type":"live","games":[{"code":"k3v9qa","variant":{},"time_control":null,"players":{"silver":{"id":"p","name":"a"},"bronze":{"id":"q","name":"b"}},"turns":14,"to_move":"bronze","score":{"silver":3,"bronze":2},"spectators":1}]})"));
    base.push_back(
        Json::parse(R"({"type":"matched","code":"game01","link":"/g/game01","side":"bronze"})"));
    base.push_back(Json::parse(
        R"({"type":"error","code":"illegal_turn","message":"m","ref":"r1","version":3,"rule":"step_shape"})"));
    base.push_back(Json::parse(
        R"({"type":"quick_match_waiting","variant":{"size":9},"time_control":{"initial_ms":1,"increment_ms":0}})"));
    for (const char* kind :
         {"join", "resign", "game_over", "chat", "cancel", "draw_offer", "draw_decline",
          "draw_accept", "timeout", "player_left", "player_back", "abandon", "abort"})
        base.push_back(event_json("game01", 5, kind,
                                  {{"side", "bronze"},
                                   {"player", {{"id", "p2"}, {"name", "bob"}}},
                                   {"claim_at", 1},
                                   {"award_at", 2},
                                   {"claimed", true},
                                   {"reason", "no_start"},
                                   {"from", {{"id", "p2"}, {"name", "bob"}}},
                                   {"text", "hi"},
                                   {"over", true},
                                   {"winner", "draw"},
                                   {"score", {{"silver", 1}, {"bronze", 1}}}}));

    const char* words[] = {
        "create", "join",  "quick",   "list",  "live",    "watch",    "leave",       "cancel",
        "setup",  "auto",  "moves",   "board", "history", "chat",     "resign",      "yes",
        "draw",   "claim", "decline", "pass",  "b1-b2",   "c1-c2:N",  "*e5",         "Sc+2",
        "W5-1",   "|",     "a1",      "i9",    "size=5",  "time=1+1", "side=bronze", "private",
        "help",   "turn",  "game01",  "Ne",    "\x1b[A",  "\xff",     "-",           ":",
        "e9-Ne",  "a2-b2", "quit"};
    int sent_before_hostile = 0;
    for (int round = 0; round < 3000; ++round) {
        Json j = base[rng.below(std::uint32_t(base.size()))];
        if (round % 3 != 0) mutate(j, rng);
        if (round % 50 == 0 && j.is_object()) j["game"] = "game01";
        std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
        if (round % 97 == 0)
            text = text.substr(0, rng.below(std::uint32_t(text.size())));  // cut short
        CHECK_NOTHROW(s.on_message(text));
        std::string line;
        for (std::uint32_t k = rng.below(4); k > 0; --k)
            line += std::string(words[rng.below(std::uint32_t(std::size(words)))]) + " ";
        if (line.find("quit") == std::string::npos) CHECK_NOTHROW(s.on_command(line));
        CHECK_NOTHROW(s.prompt(SteadyClock::now(), round % 2 == 0));
        if (round % 100 == 0) CHECK_NOTHROW(s.print_game());
        // Whatever the session sends is a message the server's own parser accepts.
        for (std::size_t k = std::size_t(sent_before_hostile); k < io.sent.size(); ++k) {
            auto parsed = proto::parse_client(std::string_view(io.sent[k].dump()));
            CHECK_MESSAGE(std::holds_alternative<proto::ClientMsg>(parsed), io.sent[k].dump());
        }
        sent_before_hostile = int(io.sent.size());
        if (io.out.size() > 1000000) io.out.clear();
    }
    CHECK_FALSE(io.quitted);
}
