// Abuse limits against the real server, each while another game is being played (which must
// be unaffected): open games per player and the size of the lobby list, slow senders,
// connections per address, the WebSocket Origin allow-list, WebSocket and HTTP timeouts, chat.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "client/lib/traffic_log.h"
#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

using nlohmann::json;

json create(GameClient& c) {
    c.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", true}});
    for (;;) {
        json m = c.conn->recv();
        if (m["type"] == "game_created" || m["type"] == "error") return m;
    }
}

// Drips `text` on the raw socket `fd` one byte every `gap` (then stays silent), reading and
// ignoring what comes; true when the server closed it before `limit` passed. Closes `fd`.
bool dropped_while_dripping(int fd, const std::string& text, std::chrono::milliseconds gap,
                            std::chrono::seconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    std::size_t i = 0;
    bool closed = false;
    while (!closed && std::chrono::steady_clock::now() < end) {
        if (i < text.size()) (void)!send(fd, &text[i++], 1, MSG_NOSIGNAL);
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, int(gap.count())) > 0) {
            char buf[4096];
            ssize_t n = recv(fd, buf, sizeof buf, 0);
            closed = n <= 0;
        }
    }
    close(fd);
    return closed;
}

bool dropped_while_dripping(unsigned short port, const std::string& text,
                            std::chrono::milliseconds gap, std::chrono::seconds limit) {
    return dropped_while_dripping(connect_loopback(port), text, gap, limit);
}

// Everything the server sends on `fd` until it closes (or 10 s pass).
std::string read_all(int fd) {
    std::string out;
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < end) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        char buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, std::size_t(n));
    }
    return out;
}

// A raw WebSocket upgrade request for /ws on a new socket, with an Origin header unless
// `origin` is empty. Returns the socket (open) and sets `status` to the response's status code
// (0 when the server closed without one). Reads only the response head.
int ws_upgrade(unsigned short http_port, const std::string& origin, int& status) {
    int fd = connect_loopback(http_port);
    std::string req =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    if (!origin.empty()) req += "Origin: " + origin + "\r\n";
    req += "\r\n";
    REQUIRE(send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size()));
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos && recv(fd, &c, 1, 0) == 1) head += c;
    status = head.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(head.substr(9, 3)) : 0;
    return fd;
}

// A client-to-server WebSocket text frame header (masked with a zero key) for `len` < 126
// payload bytes.
std::string text_frame_header(int len) {
    return std::string{char(0x81), char(0x80 | len), 0, 0, 0, 0};
}

// True when the server's log has `text` within 5 s (a line about a connection it closed may
// come just after the close).
bool log_has(const ServerProcess& s, const std::string& text) {
    for (int i = 0; i < 100; ++i) {
        if (s.log().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

// True when the server accepts a TCP connection and welcomes it.
bool welcomed(ServerProcess& s) {
    try {
        auto c = client::connect_tcp("127.0.0.1", s.tcp_port());
        c->send({{"type", "hello"}, {"version", 1}, {"name", "probe"}});
        return c->recv()["type"] == "welcome";
    } catch (const client::Closed&) {
        return false;
    }
}

}  // namespace

TEST_CASE("limit_slow_senders") {
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--handshake-seconds", "1",
                     "--slow-seconds", "1"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob");
    start_game(a, b);
    Rng rng(4);
    play_one(a, b, rng);
    // Never finishing the first message: dropped after the handshake time.
    CHECK(dropped_while_dripping(s.tcp_port(), std::string(100, ' '),
                                 std::chrono::milliseconds(300), std::chrono::seconds(10)));
    // A proper hello, then a message dripped byte by byte: dropped after the slow limit.
    std::string hello = "{\"type\":\"hello\",\"version\":1}\n";
    CHECK(dropped_while_dripping(s.tcp_port(), hello + std::string(200, ' '),
                                 std::chrono::milliseconds(20), std::chrono::seconds(15)));
    // An honest client that says hello in time and then stays quiet is kept.
    CHECK(!dropped_while_dripping(s.tcp_port(), hello, std::chrono::milliseconds(10),
                                  std::chrono::seconds(3)));
    for (int i = 0; i < 4; ++i) play_one(a, b, rng);  // the game never noticed
    CHECK(s.log().find("a message left incomplete too long") != std::string::npos);
    CHECK(s.log().find("no message within the handshake time") != std::string::npos);
}

TEST_CASE("limit_games_and_lists") {
    ServerProcess s(
        {"--rate", "1000000", "--burst", "1000000", "--max-games", "3", "--list-limit", "4"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob");
    start_game(a, b);  // the game that must not notice anything
    Rng rng(2);
    for (int i = 0; i < 4; ++i) play_one(a, b, rng);

    GameClient m = GameClient::connect(s, Transport::Tcp, "many");
    for (int i = 0; i < 3; ++i) CHECK(create(m)["type"] == "game_created");
    json e = create(m);
    CHECK(e["code"] == "too_many_games");
    CHECK(e["message"].get<std::string>().find("3 unfinished games") != std::string::npos);

    GameClient n = GameClient::connect(s, Transport::Tcp, "more");
    for (int i = 0; i < 3; ++i) CHECK(create(n)["type"] == "game_created");
    GameClient w = GameClient::connect(s, Transport::Tcp, "window-shopper");
    w.conn->send({{"type", "list_games"}});
    json list = w.conn->recv_type("lobby");
    CHECK(list["games"].size() == 4);  // six open games, four listed

    for (int i = 0; i < 4; ++i) play_one(a, b, rng);
    CHECK(a.game->turns_played() == 6);
    CHECK(s.alive());
}

// Configuration from the environment: TRUNKFIELD_<FLAG> sets a flag, the command line wins.
TEST_CASE("config_from_environment") {
    ::setenv("TRUNKFIELD_MAX_GAMES", "1", 1);
    ::setenv("TRUNKFIELD_LIST_LIMIT", "1", 1);
    ServerProcess s({"--list-limit", "2"});  // the server inherits the environment at start
    ::unsetenv("TRUNKFIELD_MAX_GAMES");
    ::unsetenv("TRUNKFIELD_LIST_LIMIT");
    GameClient m = GameClient::connect(s, Transport::Tcp, "env");
    CHECK(create(m)["type"] == "game_created");
    CHECK(create(m)["code"] == "too_many_games");  // TRUNKFIELD_MAX_GAMES=1
    GameClient n = GameClient::connect(s, Transport::Tcp, "env2");
    CHECK(create(n)["type"] == "game_created");
    GameClient o = GameClient::connect(s, Transport::Tcp, "env3");
    CHECK(create(o)["type"] == "game_created");
    GameClient w = GameClient::connect(s, Transport::Tcp, "lister");
    w.conn->send({{"type", "list_games"}});
    CHECK(w.conn->recv_type("lobby")["games"].size() == 2);  // --list-limit 2 beats the env's 1
}

TEST_CASE("limit_connections_per_ip") {
    // Loopback is one address: the playing game's two connections count too.
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--max-connections-per-ip", "6"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob");
    start_game(a, b);
    Rng rng(8);
    for (int i = 0; i < 2; ++i) play_one(a, b, rng);

    std::vector<GameClient> extra;  // four more: two per transport, six in all
    for (int i = 0; i < 4; ++i)
        extra.push_back(GameClient::connect(s, i % 2 ? Transport::Ws : Transport::Tcp, "x"));
    play_one(a, b, rng);

    // The seventh: TCP gets one error line, then the close.
    auto refused = client::connect_tcp("127.0.0.1", s.tcp_port());
    nlohmann::json e = refused->recv();
    CHECK(e["type"] == "error");
    CHECK(e["code"] == "too_many_connections");
    CHECK_THROWS_AS(refused->recv_text(), client::Closed);
    // HTTP gets 429 (whatever the request), a WebSocket client a failed handshake.
    int fd = connect_loopback(s.http_port());
    std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    REQUIRE(send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size()));
    std::string res = read_all(fd);
    close(fd);
    CHECK(res.rfind("HTTP/1.1 429 Too Many Requests\r\n", 0) == 0);
    CHECK(res.find("too many connections") != std::string::npos);
    CHECK_THROWS(client::connect_ws("127.0.0.1", s.http_port()));
    play_one(a, b, rng);

    // Closing two gives two places back (the server notices the close a moment later).
    extra[0].conn->close();
    extra[1].conn->close();
    extra.erase(extra.begin(), extra.begin() + 2);
    bool back = false;
    for (int i = 0; i < 100 && !back; ++i) {
        back = welcomed(s);  // a probe that is refused or closes does not hold a place
        if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(back);
    for (int i = 0; i < 50 && extra.size() < 4; ++i) {  // the probe's place comes back too
        try {
            extra.push_back(GameClient::connect(s, Transport::Ws, "y"));
        } catch (const std::exception&) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    CHECK(extra.size() == 4);
    CHECK(!welcomed(s));  // full again

    for (int i = 0; i < 4; ++i) play_one(a, b, rng);  // the game never noticed
    CHECK(a.game->turns_played() == 6);
    CHECK(log_has(s, "refused: 6 connections open from that address"));
    CHECK(s.alive());
}

TEST_CASE("limit_ws_origin") {
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--allowed-origins",
                     "https://play.example.org,http://localhost:8080"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob");  // no Origin header: allowed
    start_game(a, b);
    Rng rng(9);
    for (int i = 0; i < 2; ++i) play_one(a, b, rng);

    auto status_for = [&](const std::string& origin) {
        int status = 0;
        close(ws_upgrade(s.http_port(), origin, status));
        return status;
    };
    CHECK(status_for("https://play.example.org") == 101);
    CHECK(status_for("http://localhost:8080") == 101);
    CHECK(status_for("HTTPS://Play.Example.org") == 101);  // origins compare case-insensitively
    CHECK(status_for("") == 101);                          // non-browser clients send none
    CHECK(status_for("https://evil.example") == 403);
    CHECK(status_for("https://play.example.org.evil.example") == 403);
    CHECK(status_for("http://localhost:8081") == 403);
    CHECK(status_for("null") == 403);

    for (int i = 0; i < 4; ++i) play_one(a, b, rng);
    CHECK(a.game->turns_played() == 4);
    CHECK(log_has(s, "upgrade from origin 'https://evil.example' refused"));
}

TEST_CASE("limit_ws_timeouts") {
    // The players use TCP here: a blocked test client does not answer WebSocket pings while
    // it waits, and a 1 s idle time would rightly drop it.
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--handshake-seconds", "1",
                     "--slow-seconds", "1", "--idle-seconds", "1"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Tcp, "bob");
    start_game(a, b);
    Rng rng(10);
    play_one(a, b, rng);

    // A WebSocket client that stays connected through several idle periods: it answers pings
    // while it waits for the lobby update a new game brings.
    GameClient w = GameClient::connect(s, Transport::Ws, "watcher");
    w.conn->send({{"type", "list_games"}});
    w.conn->recv_type("lobby");
    std::atomic<bool> got_update{false};
    std::thread waiter([&] {
        try {
            got_update = w.conn->recv()["type"] == "lobby";
        } catch (const std::exception&) {
        }
    });

    // HTTP: a request that never completes, or nothing at all, is dropped after the
    // handshake time.
    CHECK(dropped_while_dripping(s.http_port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n",
                                 std::chrono::milliseconds(300), std::chrono::seconds(10)));
    CHECK(dropped_while_dripping(s.http_port(), "", std::chrono::milliseconds(100),
                                 std::chrono::seconds(10)));
    play_one(a, b, rng);

    // WebSocket, after the upgrade: a frame header and then a byte every 300 ms is dropped
    // after the slow limit, though bytes keep coming (the idle timeout never fires).
    int status = 0;
    int fd = ws_upgrade(s.http_port(), "", status);
    CHECK(status == 101);
    CHECK(dropped_while_dripping(fd, text_frame_header(100) + std::string(100, 'a'),
                                 std::chrono::milliseconds(300), std::chrono::seconds(10)));
    CHECK(log_has(s, "a message left incomplete too long"));
    play_one(a, b, rng);

    // A client whose every write ends in the middle of a frame (the rest follows 100 ms later)
    // is not slow: each frame is complete in time, so 2.6 s of this is fine.
    {
        fd = ws_upgrade(s.http_port(), "", status);
        CHECK(status == 101);
        const std::string msg = R"({"type":"ping"})";
        const std::string frame = text_frame_header(int(msg.size())) + msg;
        std::string stream;
        for (int i = 0; i < 26; ++i) stream += frame;
        bool closed = false;
        int pongs = 0;
        for (std::size_t at = 0; at < stream.size() && !closed;) {
            std::size_t n = std::min(at == 0 ? frame.size() / 2 : frame.size(), stream.size() - at);
            (void)!send(fd, stream.data() + at, n, MSG_NOSIGNAL);
            at += n;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            pollfd p{fd, POLLIN, 0};
            while (!closed && poll(&p, 1, 0) > 0) {
                char buf[4096];
                ssize_t got = recv(fd, buf, sizeof buf, 0);
                closed = got <= 0;
                pongs += int(
                    std::string_view(buf, std::size_t(std::max<ssize_t>(got, 0))).find("pong") !=
                    std::string_view::npos);
            }
        }
        CHECK_FALSE(closed);
        CHECK(pongs > 0);
        close(fd);
    }

    // A WebSocket client that never answers the server's pings is dropped after the idle time.
    fd = ws_upgrade(s.http_port(), "", status);
    CHECK(status == 101);
    auto t0 = std::chrono::steady_clock::now();
    CHECK(dropped_while_dripping(fd, "", std::chrono::milliseconds(100), std::chrono::seconds(15)));
    CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(900));
    CHECK(log_has(s, "no answer to a ping within the idle time"));

    // The honest WebSocket client is still there: a new public game reaches it.
    GameClient m = GameClient::connect(s, Transport::Tcp, "maker");
    m.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "silver"},
                  {"public", true}});
    waiter.join();
    CHECK(got_update);

    for (int i = 0; i < 3; ++i) play_one(a, b, rng);
    CHECK(a.game->turns_played() == 4);
    CHECK(s.alive());
}

TEST_CASE("limit_chat") {
    ServerProcess s({"--rate", "1000000", "--burst", "1000000", "--chat-lines", "2"});
    GameClient a = GameClient::connect(s, Transport::Tcp, "ann");
    GameClient b = GameClient::connect(s, Transport::Ws, "bob");
    start_game(a, b);  // the game that must not notice anything
    Rng rng(11);
    for (int i = 0; i < 2; ++i) play_one(a, b, rng);

    GameClient c = GameClient::connect(s, Transport::Tcp, "cat");
    GameClient d = GameClient::connect(s, Transport::Ws, "dan");
    start_game(c, d);
    const std::int64_t v = c.version;
    auto chat = [&](const std::string& text) {
        c.conn->send({{"type", "chat"}, {"game", c.code}, {"text", text}});
        for (;;) {
            nlohmann::json m = c.conn->recv();
            if (m["type"] == "error") return m;
            if (m["type"] == "event" && m["kind"] == "chat") return m;
        }
    };
    // Over 500 bytes: refused, and nothing happened (the next line is the game's next event).
    {
        client::traffic::Probe probe;  // invalid on purpose: not for the schema check
        CHECK(chat(std::string(501, 'x'))["code"] == "chat_too_long");
    }
    nlohmann::json ok = chat(std::string(500, 'y'));  // exactly the limit
    CHECK(ok["version"] == v + 1);
    CHECK(chat("second")["version"] == v + 2);
    CHECK(chat("third")["code"] == "chat_rate");  // --chat-lines 2 per window
    d.sync_to(v + 2);                             // dan saw the two accepted lines

    for (int i = 0; i < 4; ++i) play_one(a, b, rng);
    CHECK(a.game->turns_played() == 4);
    CHECK(a.version == b.version);
}

}  // namespace tf::test
