// Abuse limits against the real server, each while another game is being played (which must
// be unaffected): open games per player and the size of the lobby list.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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

// A raw TCP socket that drips `text` one byte every `gap`; true when the server closed it
// before `limit` passed.
bool dropped_while_dripping(unsigned short port, const std::string& text,
                            std::chrono::milliseconds gap, std::chrono::seconds limit) {
    int fd = connect_loopback(port);
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

}  // namespace tf::test
