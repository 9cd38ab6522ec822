// Ready for the public internet (issue 31), against the real server: what one attacker on one
// address, or a crowd of addresses, can and cannot do. Client addresses other than loopback come
// through the server's trust in a proxy (--trusted-proxies 127.0.0.1): a PROXY protocol v2
// header on TCP, X-Forwarded-For on HTTP, as HAProxy and nginx send them.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/json.h"
#include "game_client.h"
#include "test_util.h"

namespace tf::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::vector<std::string> args(std::vector<std::string> more) {
    auto out = kFast;
    out.insert(out.end(), more.begin(), more.end());
    return out;
}

// A PROXY protocol v2 header saying that `ipv4` connected (as HAProxy's send-proxy-v2 writes).
std::string proxy_v2(const std::string& ipv4) {
    std::string h("\r\n\r\n\0\r\nQUIT\n", 12);
    h += std::string{char(0x21), char(0x11), 0, 12};
    unsigned a, b, c, d;
    REQUIRE(std::sscanf(ipv4.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d) == 4);
    h += std::string{char(a), char(b), char(c), char(d), 127, 0, 0, 1};
    h += std::string{char(0x9c), 0x40, char(0x1f), char(0x91)};  // ports 40000 and 8081
    return h;
}

// A newline-delimited JSON connection on raw bytes, optionally behind a PROXY header.
struct Line {
    int fd = -1;
    std::string buf;
    explicit Line(unsigned short port, const std::string& from = "", const std::string& raw = "") {
        fd = connect_loopback(port);
        std::string first = from.empty() ? raw : proxy_v2(from) + raw;
        if (!first.empty()) REQUIRE(::send(fd, first.data(), first.size(), MSG_NOSIGNAL) > 0);
    }
    ~Line() {
        if (fd >= 0) ::close(fd);
    }
    Line(const Line&) = delete;
    Line& operator=(const Line&) = delete;
    void send(const json& m) {
        const std::string t = m.dump() + "\n";
        (void)!::send(fd, t.data(), t.size(), MSG_NOSIGNAL);
    }
    // The next message; null after `wait` without one; {"closed": true} when the server closed.
    json recv(std::chrono::milliseconds wait = 10s) {
        const auto end = std::chrono::steady_clock::now() + wait;
        for (;;) {
            if (auto nl = buf.find('\n'); nl != std::string::npos) {
                std::string line = buf.substr(0, nl);
                buf.erase(0, nl + 1);
                return json::parse(line);
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                end - std::chrono::steady_clock::now());
            if (left.count() <= 0) return nullptr;
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, int(left.count())) <= 0) continue;
            char chunk[4096];
            ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return json{{"closed", true}};
            buf.append(chunk, std::size_t(n));
        }
    }
    // The next message of one of `types` (others skipped).
    json until(std::initializer_list<const char*> types, std::chrono::milliseconds wait = 10s) {
        for (;;) {
            json m = recv(wait);
            if (m.is_null() || m.contains("closed")) return m;
            for (const char* t : types)
                if (m["type"] == t) return m;
        }
    }
    // register as `user`: the welcome, or the error.
    json register_as(const std::string& user, const std::string& password) {
        send({{"type", "register"}, {"username", user}, {"password", password}, {"ref", "r"}});
        return until({"welcome", "error"});
    }
    json hello(const std::string& name = "") {
        json h = {{"type", "hello"}, {"version", 1}};
        if (!name.empty()) h["name"] = name;
        send(h);
        return until({"welcome", "error"});
    }
};

json create_msg(bool is_public = true, const std::string& ref = "") {
    json m = {{"type", "create_game"},
              {"time_control", nullptr},
              {"color", "silver"},
              {"public", is_public}};
    if (!ref.empty()) m["ref"] = ref;
    return m;
}

json create(Line& c, bool is_public = true) {
    c.send(create_msg(is_public));
    return c.until({"game_created", "error"});
}

std::vector<std::string> lobby_codes(const json& lobby) {
    std::vector<std::string> out;
    for (const auto& g : lobby["games"]) out.push_back(g["code"]);
    return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// The codes of a history API list answer (with optional extra request headers).
std::vector<std::string> listed(ServerProcess& s, const std::string& target,
                                const std::string& headers = "") {
    auto r = http_get(s.http_port(), target, headers);
    REQUIRE(r.status == 200);
    std::vector<std::string> out;
    json j = json::parse(r.body);
    for (const auto& g : j.contains("games") ? j["games"] : j["recent"]) out.push_back(g["code"]);
    return out;
}

std::string bearer(const std::string& token) {
    return "Authorization: Bearer " + token + "\r\n";
}

// How many lines of `log` contain `text`.
int log_line_count(const std::string& log, const std::string& text) {
    int n = 0;
    std::size_t from = 0;
    while (from < log.size()) {
        auto nl = log.find('\n', from);
        if (nl == std::string::npos) nl = log.size();
        if (std::string_view(log).substr(from, nl - from).find(text) != std::string_view::npos) ++n;
        from = nl + 1;
    }
    return n;
}

// Polls until `pred` holds (at most `limit`).
template <class P>
bool eventually(P pred, std::chrono::milliseconds limit = 10s) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(50ms);
    }
    return pred();
}

std::string metric(ServerProcess& s, const std::string& name) {
    auto r = http_get(s.http_port(), "/metrics");
    std::smatch m;
    std::regex re("\n" + std::regex_replace(name, std::regex(R"([{}"])"), R"(\$&)") + " (\\S+)");
    return std::regex_search(r.body, m, re) ? m[1].str() : "";
}

// A raw HTTP exchange: the whole answer, read until the server closes (or 5 s).
std::string http_raw(unsigned short port, const std::string& request) {
    int fd = connect_loopback(port);
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string out;
    const auto end = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < end) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        char buf[4096];
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, std::size_t(n));
    }
    ::close(fd);
    return out;
}

// A WebSocket on raw bytes: the upgrade (with extra header lines), masked frames out, frames in.
struct RawWs {
    int fd = -1;
    int status = 0;
    std::string buf;
    RawWs(unsigned short port, const std::string& headers = "") {
        fd = connect_loopback(port);
        std::string req =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
            headers + "\r\n";
        REQUIRE(::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size()));
        std::string head;
        char c;
        while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
        status = head.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(head.substr(9, 3)) : 0;
    }
    ~RawWs() {
        if (fd >= 0) ::close(fd);
    }
    RawWs(const RawWs&) = delete;
    RawWs& operator=(const RawWs&) = delete;
    // A masked frame (zero key) of at most 125 bytes; `fin` false for a first fragment.
    bool frame(int opcode, const std::string& payload, bool fin = true) {
        std::string f{char((fin ? 0x80 : 0) | opcode), char(0x80 | payload.size()), 0, 0, 0, 0};
        f += payload;
        return ::send(fd, f.data(), f.size(), MSG_NOSIGNAL) == ssize_t(f.size());
    }
    void text(const json& m) { frame(1, m.dump()); }
    // The server closed the connection within `wait` (frames in between are read and dropped).
    bool closed_within(std::chrono::milliseconds wait) {
        const auto end = std::chrono::steady_clock::now() + wait;
        while (std::chrono::steady_clock::now() < end) {
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, 50) <= 0) continue;
            char b[4096];
            ssize_t n = ::recv(fd, b, sizeof b, 0);
            if (n <= 0) return true;
            buf.append(b, std::size_t(n));
        }
        return false;
    }
};

}  // namespace

// H1: fresh guests from one address make at most --max-open-games-per-ip open games; one player
// at most --max-open-games-per-player; another address is not affected; a cancelled game gives
// its place back; the lobby lists the newest first.
TEST_CASE("abuse_open_games") {
    ServerProcess s(args({"--trusted-proxies", "127.0.0.1"}));
    int created = 0;
    json refusal;
    std::vector<std::unique_ptr<Line>> keep;  // the creators stay: their games stay listed
    for (int i = 0; i < 12; ++i) {
        keep.push_back(std::make_unique<Line>(s.tcp_port(), "198.51.100.7"));
        REQUIRE(keep.back()->hello()["type"] == "welcome");  // a new guest each time
        json m = create(*keep.back());
        if (m["type"] == "game_created")
            ++created;
        else
            refusal = m;
    }
    CHECK(created == 8);  // --max-open-games-per-ip's default
    CHECK(refusal["code"] == "too_many_open_games");
    CHECK(refusal["message"].get<std::string>().find("address") != std::string::npos);
    CHECK(log_line_count(s.log(), "create_game refused: 8 open games from the address") >= 1);

    // Another address: its own places. One player: three.
    Line ann(s.tcp_port(), "198.51.100.8");
    REQUIRE(ann.hello("ann")["type"] == "welcome");
    std::vector<std::string> mine;
    for (int i = 0; i < 3; ++i) {
        json m = create(ann);
        REQUIRE(m["type"] == "game_created");
        mine.push_back(m["code"]);
    }
    json fourth = create(ann);
    CHECK(fourth["code"] == "too_many_open_games");
    CHECK(fourth["message"].get<std::string>().find("you have 3") != std::string::npos);
    ann.send({{"type", "cancel_game"}, {"code", mine[0]}});
    CHECK(ann.until({"event"})["kind"] == "cancel");
    json again = create(ann);
    REQUIRE(again["type"] == "game_created");
    mine.push_back(again["code"]);

    // Newest first: ann's last three, then the flood's eight.
    Line watcher(s.tcp_port());
    watcher.hello("watcher");
    watcher.send({{"type", "list_games"}});
    auto codes = lobby_codes(watcher.until({"lobby"}));
    REQUIRE(codes.size() == 11);
    CHECK(codes[0] == mine[3]);
    CHECK(codes[1] == mine[2]);
    CHECK(codes[2] == mine[1]);
    CHECK(!contains(codes, mine[0]));
}

// A creation flood costs a lobby subscriber one message per --lobby-interval-ms: the first
// change at once, the rest together when the interval ends.
TEST_CASE("abuse_lobby_coalesced") {
    ServerProcess s(args({"--trusted-proxies", "127.0.0.1", "--lobby-interval-ms", "1500"}));
    Line watcher(s.tcp_port());
    watcher.hello("watcher");
    watcher.send({{"type", "list_games"}});
    CHECK(lobby_codes(watcher.until({"lobby"})).empty());
    std::vector<std::unique_ptr<Line>> creators;
    for (int i = 0; i < 6; ++i) {
        creators.push_back(
            std::make_unique<Line>(s.tcp_port(), "198.51.100." + std::to_string(i + 1)));
        creators.back()->hello();
        REQUIRE(create(*creators.back())["type"] == "game_created");
    }
    int messages = 0;
    std::size_t last = 0;
    for (json m; !(m = watcher.until({"lobby"}, 2500ms)).is_null();) {
        ++messages;
        last = m["games"].size();
    }
    CHECK(messages >= 1);
    CHECK(messages <= 2);  // six creations within the interval: the first, then the rest
    CHECK(last == 6);
}

// A game whose creator has no connection to it leaves the lobby after --open-away-seconds, comes
// back when the creator does, and is cancelled after --open-cancel-seconds; after a restart the
// restored open games wait for their creators the same way.
TEST_CASE("abuse_open_away") {
    TempDir t;
    auto flags = with_data(t.path);
    flags.insert(flags.end(), {"--open-away-seconds", "1", "--open-cancel-seconds", "3",
                               "--lobby-interval-ms", "0"});
    std::string token, code, code2;
    {
        ServerProcess s(flags);
        Line watcher(s.tcp_port());
        watcher.hello("watcher");
        watcher.send({{"type", "list_games"}});
        watcher.until({"lobby"});
        {
            Line ann(s.tcp_port());
            token = ann.hello("ann")["token"];
            code = create(ann)["code"];
            code2 = create(ann)["code"];
            CHECK(contains(lobby_codes(watcher.until({"lobby"})), code));
        }  // ann's connection closes
        bool gone = false;
        for (json m; !gone && !(m = watcher.until({"lobby"}, 5s)).is_null();)
            gone = !contains(lobby_codes(m), code);
        CHECK(gone);
        Line back(s.tcp_port());
        back.send({{"type", "hello"}, {"version", 1}, {"token", token}});
        back.until({"welcome"});
        back.send({{"type", "watch"}, {"code", code}});
        back.until({"snapshot"});
        bool listed_again = false;
        for (json m; !listed_again && !(m = watcher.until({"lobby"}, 5s)).is_null();)
            listed_again = contains(lobby_codes(m), code);
        CHECK(listed_again);
        // code2 was not watched again: cancelled once ann has been away 3 s.
        CHECK(eventually([&] {
            return json::parse(http_get(s.http_port(), "/api/games/" + code2).body)["status"] ==
                   "cancelled";
        }));
        CHECK(json::parse(http_get(s.http_port(), "/api/games/" + code).body)["status"] == "open");
    }
    // Restarted: nobody is connected, so the open game is not listed and, its creator not
    // coming back, is cancelled.
    ServerProcess s(flags);
    Line watcher(s.tcp_port());
    watcher.hello("watcher2");
    watcher.send({{"type", "list_games"}});
    CHECK(eventually([&] {
        watcher.send({{"type", "ping"}});
        json m = watcher.until({"lobby", "pong"}, 1s);
        return m.is_object() && m["type"] == "lobby" && !contains(lobby_codes(m), code);
    }));
    CHECK(eventually([&] {
        return json::parse(http_get(s.http_port(), "/api/games/" + code).body)["status"] ==
               "cancelled";
    }));
}

// A double click: create_game twice with one ref is one game, answered twice.
TEST_CASE("abuse_create_repeat") {
    ServerProcess s(kFast);
    Line ann(s.tcp_port());
    json w = ann.hello("ann");
    ann.send(create_msg(true, "c1"));
    ann.send(create_msg(true, "c1"));
    json first = ann.until({"game_created"});
    json second = ann.until({"game_created"});
    CHECK(first["ref"] == "c1");
    CHECK(second["ref"] == "c1");
    CHECK(first["code"] == second["code"]);
    ann.send(create_msg(true, "c2"));
    json third = ann.until({"game_created"});
    CHECK(third["code"] != first["code"]);
    CHECK(listed(s, "/api/games?player=" + w["player_id"].get<std::string>()).size() == 2);
}

// H2: a private game's code is in no public answer: the lists, a player's page, the live list;
// its players see it (Authorization: Bearer with their token), and anyone who has the code may
// open it by that code.
TEST_CASE("abuse_private_games") {
    ServerProcess s(kFast);
    Line ann(s.tcp_port());
    ann.hello();
    json w = ann.register_as("ann", "correct horse");
    const std::string id = w["player_id"], token = w["token"];
    const std::string priv = create(ann, false)["code"];
    const std::string pub = create(ann, true)["code"];
    Line bob(s.tcp_port());
    json bw = bob.hello("bob");
    for (const char* target :
         {"/api/games", "/api/games?status=open", "/api/games?status=live&limit=100"}) {
        INFO(target);
        CHECK(!contains(listed(s, target), priv));
    }
    CHECK(contains(listed(s, "/api/games"), pub));
    CHECK(!contains(listed(s, "/api/games?player=" + id), priv));
    CHECK(!contains(listed(s, "/api/players/ann"), priv));
    CHECK(!contains(listed(s, "/api/games", bearer(bw["token"])), priv));         // another player
    CHECK(!contains(listed(s, "/api/games", bearer("0123456789abcdef")), priv));  // no player
    CHECK(contains(listed(s, "/api/games", bearer(token)), priv));                // its creator
    CHECK(contains(listed(s, "/api/players/ann", bearer(token)), priv));
    CHECK(http_get(s.http_port(), "/api/games/" + priv).status == 200);  // by its code

    // Joined by code, played: still in no public list, not in the live list.
    bob.send({{"type", "join_game"}, {"code", priv}});
    CHECK(bob.until({"snapshot"})["status"] == "playing");
    Line watcher(s.tcp_port());
    watcher.hello("watcher");
    watcher.send({{"type", "list_live"}});
    const json live = watcher.until({"live"});
    for (const auto& g : live["games"]) CHECK(g["code"] != priv);
    CHECK(!contains(listed(s, "/api/games?status=live"), priv));
    CHECK(contains(listed(s, "/api/games?status=live", bearer(bw["token"])), priv));
}

// M1: at the descriptor limit the server refuses what it cannot serve instead of spinning: the
// connection cap below RLIMIT_NOFILE answers "full"; past the cap (a cap set too high), accept
// pauses, with one log line per episode, and serves again once descriptors free up.
TEST_CASE("abuse_descriptors") {
    {
        ServerProcess s(args({"--test-nofile=100"}));  // the cap: 100 - 64 = 36 connections
        CHECK(s.log().find("at most 36 in all") != std::string::npos);
        std::vector<std::unique_ptr<Line>> held;
        int refused = 0;
        for (int i = 0; i < 50; ++i) held.push_back(std::make_unique<Line>(s.tcp_port()));
        for (auto& l : held) {
            json m = l->recv(200ms);
            if (m.is_object() && m.value("code", "") == "too_many_connections") {
                CHECK(m["message"].get<std::string>().find("full") != std::string::npos);
                ++refused;
            }
        }
        CHECK(refused >= 10);
        held.clear();
        CHECK(eventually([&] { return Line(s.tcp_port()).hello()["type"] == "welcome"; }));
        CHECK(std::stoi(metric(s, "trunkfield_connections_refused_total{reason=\"full\"}")) >=
              refused);
    }
#if defined(__SANITIZE_ADDRESS__)
    // Past the cap the sanitizers' own runtime needs descriptors too (UBSan reports an "invalid
    // vptr" when it cannot read /proc/self/maps): the exhaustion itself is the release tree's.
    MESSAGE("accept's pause at the descriptor limit: not checked in a sanitizer build");
    return;
#endif
    ServerProcess s(args({"--test-nofile=100", "--max-connections", "100000"}));
    std::vector<int> held;
    for (int i = 0; i < 150; ++i) held.push_back(connect_loopback(s.tcp_port()));
    CHECK(eventually([&] { return s.log().find("pausing new connections") != std::string::npos; }));
    std::this_thread::sleep_for(1500ms);  // exhausted all along: still one line
    const std::string log = s.log();
    CHECK(log_line_count(log, "pausing new connections") == 1);
    CHECK(log_line_count(log, "accept on port") <= 2);
    for (int fd : held) ::close(fd);
    CHECK(eventually([&] { return Line(s.tcp_port()).hello()["type"] == "welcome"; }));
    CHECK(eventually([&] { return s.log().find("accepting again") != std::string::npos; }));
    // Once descriptors free up the server accepts the backlog of connections the test already
    // closed; it can run out again for a moment while they close: a second episode, a second
    // line. What must hold is one line and one count per episode.
    CHECK(eventually([&] {
        const int pauses = std::stoi(metric(s, "trunkfield_accept_pauses_total"));
        return pauses >= 1 && log_line_count(s.log(), "pausing new connections") == pauses;
    }));
}

// M2, M3: limits on password checks. The owner's address is never locked by others' failures;
// a distributed attack only stops addresses that never logged in to the account; every check
// counts against its address; a full password queue answers try_again at once.
TEST_CASE("abuse_logins") {
    ServerProcess s(args({"--trusted-proxies", "127.0.0.1"}));
    auto login = [&](const std::string& from, const std::string& password) {
        Line c(s.tcp_port(), from);
        c.hello();
        c.send({{"type", "login"}, {"username", "carol"}, {"password", password}, {"ref", "l"}});
        json m = c.until({"welcome", "error"});
        return m["type"] == "welcome" ? std::string("welcome") : m["code"].get<std::string>();
    };
    {
        Line reg(s.tcp_port(), "198.51.100.1");
        reg.hello();
        REQUIRE(reg.register_as("carol", "secret carol")["type"] == "welcome");
    }
    CHECK(login("198.51.100.1", "secret carol") == "welcome");  // home: known from now on
    for (int i = 0; i < 5; ++i) CHECK(login("203.0.113.1", "guess") == "bad_credentials");
    CHECK(login("203.0.113.1", "secret carol") == "too_many_attempts");  // that address only
    CHECK(login("198.51.100.1", "secret carol") == "welcome");           // the owner is not
    CHECK(log_line_count(s.log(), "[203.0.113.1]: failed login for carol") == 5);
    // Many addresses, one failure each: at ten failures the account is under attack.
    for (int i = 2; i < 7; ++i)
        CHECK(login("203.0.113." + std::to_string(i), "guess") == "bad_credentials");
    CHECK(login("203.0.113.50", "secret carol") == "too_many_attempts");  // a new address
    CHECK(login("198.51.100.1", "secret carol") == "welcome");            // home still works
}

TEST_CASE("abuse_login_budget") {
    ServerProcess s(args({"--trusted-proxies", "127.0.0.1", "--login-checks-per-address", "4",
                          "--password-threads", "1", "--password-queue", "1"}));
    {
        Line reg(s.tcp_port(), "198.51.100.1");
        reg.hello();
        REQUIRE(reg.register_as("dave", "secret dave")["type"] == "welcome");
    }
    // Every check counts, successful or not: the register and three logins, then refused.
    Line c(s.tcp_port(), "198.51.100.1");
    c.hello();
    std::vector<std::string> got;
    for (int i = 0; i < 4; ++i) {
        c.send({{"type", "login"},
                {"username", "dave"},
                {"password", "secret dave"},
                {"ref", std::to_string(i)}});
        json m = c.until({"welcome", "error"});
        got.push_back(m["type"] == "welcome" ? "welcome" : m["code"].get<std::string>());
    }
    CHECK(got == std::vector<std::string>{"welcome", "welcome", "welcome", "too_many_attempts"});
    // A crowd of addresses logging in at once: one hash at a time, one waiting; the rest are
    // told at once to try again.
    std::vector<std::unique_ptr<Line>> crowd;
    for (int i = 0; i < 8; ++i) {
        crowd.push_back(std::make_unique<Line>(s.tcp_port(), "203.0.113." + std::to_string(i + 1)));
        crowd.back()->hello();
    }
    for (auto& l : crowd)
        l->send(
            {{"type", "login"}, {"username", "dave"}, {"password", "secret dave"}, {"ref", "x"}});
    int welcome = 0, busy = 0;
    for (auto& l : crowd) {
        json m = l->until({"welcome", "error"});
        if (m["type"] == "welcome") ++welcome;
        if (m.value("code", "") == "try_again") ++busy;
    }
    CHECK(welcome >= 1);
    CHECK(busy >= 1);
    CHECK(std::stoi(metric(s, "trunkfield_rejected_total{code=\"try_again\"}")) == busy);
}

// New passwords: no common ones, no blanks, enough different characters, not the username.
TEST_CASE("abuse_passwords") {
    ServerProcess s(kFast);
    Line c(s.tcp_port());
    c.hello();
    auto reg = [&](const std::string& user, const std::string& password) {
        json m = c.register_as(user, password);
        return m["type"] == "welcome" ? std::string("welcome") : m["code"].get<std::string>();
    };
    for (const char* weak : {"12345678", "Password1", "qwertyuiop", "        ", "  abc   d  ",
                             "aaaaaaaa", "abababab12", "Dave12345"}) {
        INFO(weak);
        CHECK(reg("dave12345", weak) == "weak_password");
    }
    CHECK(reg("dave12345", "correct horse") == "welcome");
}

// Names: normalised, without control or direction characters, and not an account's or a
// reserved one; a refused hello may be followed by another.
TEST_CASE("abuse_names") {
    ServerProcess s(kFast);
    {
        Line a(s.tcp_port());
        a.hello();
        REQUIRE(a.register_as("Ann", "correct horse")["type"] == "welcome");
    }
    auto hello = [&](const std::string& name) {
        Line c(s.tcp_port());
        return c.hello(name);
    };
    for (const std::string bad :
         {"ann\nbob", "tab\there", "a\u202Eevil", "zero\u200Bwidth", "bidi\u2066x", "guest-1a2b",
          "Admin", "Computer (level 3)", "ANN", "\uFF21\uFF4E\uFF4E", "x\u0301\u0302\u0303"}) {
        INFO(bad);
        json m = hello(bad);
        CHECK(m["type"] == "error");
        CHECK(m["code"] == "bad_name");
    }
    CHECK(hello("  Zoë    Smith ")["name"] == "Zoë Smith");
    CHECK(hello("Zoe\u0301")["name"] == "Zo\u00e9");  // NFC
    CHECK(hello("guest7")["type"] == "welcome");
    CHECK(hello("bot-4")["type"] == "welcome");  // what `trunkfield bot` calls itself
    Line c(s.tcp_port());
    CHECK(c.hello("ann")["code"] == "bad_name");
    json m = c.hello("ann the second");
    CHECK(m["type"] == "welcome");
    CHECK(m["name"] == "ann the second");
}

// M4: behind a trusted proxy the per-address limits and the logs see the client that
// X-Forwarded-For names; from anyone else the header is ignored.
TEST_CASE("abuse_trusted_proxies") {
    {
        ServerProcess s(args({"--trusted-proxies", "127.0.0.1", "--max-connections-per-ip", "2"}));
        const std::string xff = "X-Forwarded-For: 192.0.2.99, 203.0.113.5\r\n";
        RawWs a(s.http_port(), xff), b(s.http_port(), xff);
        CHECK(a.status == 101);
        CHECK(b.status == 101);
        RawWs c(s.http_port(), xff);
        CHECK(c.status == 429);  // 203.0.113.5 holds two already
        RawWs d(s.http_port(), "X-Forwarded-For: 203.0.113.6\r\n");
        CHECK(d.status == 101);
        a.text({{"type", "hello"}, {"version", 1}, {"name", "through"}});
        CHECK(eventually(
            [&] { return s.log().find("[203.0.113.5]: hello from") != std::string::npos; }));
        // TCP: a PROXY header names the client; a malformed one closes the connection.
        Line t(s.tcp_port(), "198.51.100.20");
        t.hello("tcp-through");
        CHECK(eventually(
            [&] { return s.log().find("[198.51.100.20]: hello from") != std::string::npos; }));
        Line bad(s.tcp_port(), "", std::string("\r\n\r\n\0\r\nQUIT\n\x31\x11\0\x0c", 16));
        CHECK(bad.recv().contains("closed"));
    }
    ServerProcess s(kFast);  // no trusted proxy: the header is the client's word, ignored
    RawWs a(s.http_port(), "X-Forwarded-For: 203.0.113.5\r\n");
    REQUIRE(a.status == 101);
    a.text({{"type", "hello"}, {"version", 1}, {"name", "direct"}});
    CHECK(eventually([&] { return s.log().find("[127.0.0.1]: hello from") != std::string::npos; }));
    CHECK(s.log().find("203.0.113.5") == std::string::npos);
    Line t(s.tcp_port(), "198.51.100.20");  // a PROXY header from an untrusted peer: not JSON
    CHECK(t.until({"error"})["code"] == "bad_json");
}

// Malformed HTTP is answered (400, 413, 414, 431) and closed; /metrics only for this machine's
// direct clients or with the token; static files are served whole from a stream.
TEST_CASE("abuse_http") {
    TempDir web;
    {
        std::ofstream(web.path + "/index.html") << "<!doctype html><title>t</title>";
        std::ofstream big(web.path + "/big.bin", std::ios::binary);
        for (int i = 0; i < 3 * 1024; ++i) big << std::string(1024, char('a' + i % 26));
    }
    ServerProcess s(args({"--web-root", web.path}));
    auto status = [](const std::string& answer) {
        return answer.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(answer.substr(9, 3)) : 0;
    };
    CHECK(status(http_raw(s.http_port(), "GARBAGE\r\n\r\n")) == 400);
    CHECK(status(http_raw(s.http_port(), "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n")) ==
          414);
    CHECK(status(http_raw(s.http_port(), "GET / HTTP/1.1\r\nX-Big: " + std::string(9000, 'b') +
                                             "\r\n\r\n")) == 431);
    CHECK(status(http_raw(s.http_port(),
                          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")) == 413);
    CHECK(http_get(s.http_port(), "/metrics").status == 200);
    CHECK(http_get(s.http_port(), "/metrics", "X-Forwarded-For: 198.51.100.1\r\n").status == 404);
    auto big = http_get(s.http_port(), "/big.bin");
    CHECK(big.status == 200);
    CHECK(big.body.size() == 3u * 1024 * 1024);
    CHECK(big.body.substr(1024, 3) == "bbb");
    // a game's link in any letter case is the page; an address with nothing behind it is 404,
    // with the page (which says so in the player's language) when a browser asks for a page
    CHECK(http_get(s.http_port(), "/g/K3V9QA").status == 200);
    auto missing = http_get(s.http_port(), "/nonsense", "Accept: text/html,*/*;q=0.8\r\n");
    CHECK(missing.status == 404);
    CHECK(missing.body.find("<!doctype html>") == 0);
    auto plain = http_get(s.http_port(), "/nonsense.js");
    CHECK(plain.status == 404);
    CHECK(plain.body == "not found\n");

    ServerProcess t(args({"--metrics-token", "s3cret-token"}));
    CHECK(http_get(t.http_port(), "/metrics").status == 404);
    CHECK(http_get(t.http_port(), "/metrics", bearer("wrong")).status == 404);
    CHECK(http_get(t.http_port(), "/metrics", bearer("s3cret-token")).status == 200);
}

// WebSocket pings cost message credits; a ping between a message's fragments does not restart
// its --slow-seconds.
TEST_CASE("abuse_ws_pings") {
    ServerProcess s({"--rate", "1", "--burst", "5", "--slow-seconds", "1"});
    {
        RawWs ws(s.http_port());
        REQUIRE(ws.status == 101);
        for (int i = 0; i < 30; ++i) ws.frame(9, "p");
        CHECK(ws.closed_within(5s));
        CHECK(ws.buf.find("rate_limited") != std::string::npos);
        CHECK(ws.buf.find("flooding") != std::string::npos);
    }
    RawWs ws(s.http_port());
    REQUIRE(ws.status == 101);
    ws.frame(1, R"({"type":)", false);  // a first fragment, never finished
    const auto start = std::chrono::steady_clock::now();
    bool closed = false;
    for (int i = 0; i < 12 && !closed; ++i) {
        ws.frame(9, "");  // a ping every 0.25 s: within the credits
        closed = ws.closed_within(250ms);
    }
    CHECK(closed);
    CHECK(std::chrono::steady_clock::now() - start < 2800ms);
}

// The store's folder and files are the server user's alone, whatever the umask.
TEST_CASE("abuse_data_files") {
    TempDir t;
    const std::string dir = t.path + "/data";
    const mode_t old = ::umask(022);
    ServerProcess s(with_data(dir));
    ::umask(old);
    Line c(s.tcp_port());
    c.hello("ann");
    REQUIRE(create(c)["type"] == "game_created");
    struct stat st {};
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    for (const char* f : {"/trunkfield.db", "/trunkfield.db-wal", "/trunkfield.db-shm"}) {
        INFO(f);
        REQUIRE(::stat((dir + f).c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0600);
    }
}

}  // namespace tf::test
