// `trunkfield bot` (client/cli/bot_cmd.cpp) as a child process against the real server: it
// joins a game created by the test's own client, which plays random legal turns, and both play
// to the end; two bot processes play quick matches in a row against each other, under the
// server's default message credits and under credits too few for their pace, when the server
// refuses some of their messages (`rate_limited`) and they must recover.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/json.h"
#include "game_client.h"

namespace tf::test {
namespace {

using nlohmann::json;

// A child process with its output in a temporary file; killed if still running when destroyed.
class Child {
  public:
    explicit Child(std::vector<std::string> args) {
        char tmpl[] = "/tmp/tf-bot-XXXXXX";
        const int fd = mkstemp(tmpl);
        REQUIRE(fd >= 0);
        out_path_ = tmpl;
        pid_ = spawn(std::move(args), fd);
        close(fd);
    }
    ~Child() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        unlink(out_path_.c_str());
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    // The exit status, or -1 when it did not exit within `seconds`.
    int wait(double seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < end) {
            int st = 0;
            if (waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }
    std::string output() const {
        std::ifstream in(out_path_);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

  private:
    pid_t pid_ = -1;
    std::string out_path_;
};

// Waits for both bots, `seconds` at most in all (a guard: a stalled bot fails the test, not the
// time it takes); their exit statuses (-1: still running).
std::pair<int, int> wait_both(Child& one, Child& two, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    const int s1 = one.wait(seconds);
    const double left =
        std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count();
    return {s1, two.wait(std::max(left, 1.0))};
}

std::vector<std::string> bot_args(const ServerProcess& s, int level,
                                  std::vector<std::string> more) {
    std::vector<std::string> a = {TF_CLI_BIN, "bot",
                                  "--server", "127.0.0.1:" + std::to_string(s.tcp_port()),
                                  "--level",  std::to_string(level)};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

}  // namespace

TEST_CASE("bot_client") {
    ServerProcess server({"--rate", "1000000", "--burst", "1000000"});
    GameClient a = GameClient::connect(server, Transport::Tcp, "human");
    a.conn->send({{"type", "create_game"},
                  {"time_control", nullptr},
                  {"color", "bronze"},
                  {"public", false}});
    const json created = a.recv_until("game_created");
    const std::string code = created["code"];
    a.recv_until("snapshot");
    REQUIRE(a.side == Side::Bronze);

    Child bot(bot_args(server, 1, {"--code", code, "--name", "robot", "--seed", "3"}));
    // The bot joins as silver and sets up first; the test answers every time it is to move.
    Rng rng(11);
    int ours = 0;
    while (!a.over) {
        const bool our_move = a.game && !a.game->over() && a.game->to_move() == *a.side;
        if (!our_move) {
            a.recv_until("event");
            continue;
        }
        a.conn->send(random_action(a, rng, "h"));
        const json ack = a.recv_until("ack");
        CHECK(ack["ref"] == "h");
        a.sync_to(ack["version"]);
        ++ours;
        REQUIRE(ours < 5000);
    }
    CHECK(a.result["over"] == true);
    CHECK(a.game->over());
    CHECK(a.game->turns_played() > 4);
    const int status = bot.wait(60);
    const std::string out = bot.output();
    INFO("bot output:\n" << out);
    CHECK(status == 0);
    CHECK(out.find("game 1/1 " + code + " over") != std::string::npos);
    CHECK(out.find("the bot played silver") != std::string::npos);
    MESSAGE("human vs bot: " << a.result.dump() << " after " << a.game->turns_played() << " turns");
    CHECK(server.alive());
}

TEST_CASE("bot_quick_match") {
    ServerProcess server({"--rate", "1000000", "--burst", "1000000"});
    Child one(bot_args(server, 1, {"--games", "2", "--name", "one", "--seed", "1"}));
    Child two(bot_args(server, 2, {"--games", "2", "--name", "two", "--seed", "2"}));
    const int s1 = one.wait(120), s2 = two.wait(120);
    const std::string o1 = one.output(), o2 = two.output();
    INFO("bot one:\n" << o1 << "\nbot two:\n" << o2);
    CHECK(s1 == 0);
    CHECK(s2 == 0);
    for (const std::string* o : {&o1, &o2}) {
        CHECK(o->find("game 1/2 ") != std::string::npos);
        CHECK(o->find("game 2/2 ") != std::string::npos);
        CHECK(o->find("bot: 2 games: ") != std::string::npos);
    }
    CHECK(server.alive());
}

// No --rate or --burst: the bots play as fast as they can (level 1 thinks for microseconds), so
// they must pace themselves under the server's default credits, for several games on one
// connection.
TEST_CASE("bot_default_limits") {
    ServerProcess server;
    Child one(bot_args(server, 1, {"--games", "3", "--name", "one", "--seed", "1"}));
    Child two(bot_args(server, 1, {"--games", "3", "--name", "two", "--seed", "2"}));
    const auto [s1, s2] = wait_both(one, two, 100);
    const std::string o1 = one.output(), o2 = two.output();
    INFO("bot one:\n" << o1 << "\nbot two:\n" << o2);
    CHECK(s1 == 0);
    CHECK(s2 == 0);
    for (const std::string* o : {&o1, &o2}) CHECK(o->find("bot: 3 games: ") != std::string::npos);
    CHECK(server.alive());
}

// Credits far below the bots' pace (a bucket of 2, refilled 5 a second): the server drops some
// of their messages with `rate_limited` (which names no ref). A bot must slow down, ask again
// for the game and play on; one that waits for the answer to a dropped turn stalls forever.
TEST_CASE("bot_rate_limited") {
    ServerProcess server({"--rate", "5", "--burst", "2"});
    Child one(bot_args(server, 1, {"--name", "one", "--seed", "1"}));
    Child two(bot_args(server, 1, {"--name", "two", "--seed", "2"}));
    const auto [s1, s2] = wait_both(one, two, 100);
    const std::string o1 = one.output(), o2 = two.output();
    INFO("bot one:\n" << o1 << "\nbot two:\n" << o2);
    CHECK(s1 == 0);  // -1: stalled
    CHECK(s2 == 0);
    for (const std::string* o : {&o1, &o2}) {
        CHECK(o->find("game 1/1 ") != std::string::npos);
        CHECK(o->find(" over (") != std::string::npos);
        CHECK(o->find("bot: 1 game: ") != std::string::npos);
    }
    // The recovery was needed: the server refused at least one message of a bot.
    CHECK((o1 + o2).find("rate limited by the server") != std::string::npos);
    CHECK(server.log().find("rate limited") != std::string::npos);
    CHECK(server.alive());
}

}  // namespace tf::test
