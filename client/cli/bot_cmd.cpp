// `trunkfield bot`: plays as a normal client over TCP (proto/PROTOCOL.md) with the bot engine
// of common/bot.h. It rebuilds each game from the server's snapshot and events with the rules
// library, answers with a setup or turn (with the last version seen and a ref) whenever its
// seat is to move, resynchronises with `watch` after an error or a gap, reconnects with its
// token if the connection drops, and goes on to the next game after `game_over`.
#include "bot_cmd.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "client/lib/connection.h"
#include "common/bot.h"
#include "common/json.h"
#include "common/notation.h"

namespace tf::cli {

namespace {

using nlohmann::json;

constexpr const char* kUsage = R"(usage:
  trunkfield bot --server HOST:PORT --level N [--games K] [--code CODE] [--name NAME]
                 [--seed S] [--verbose]
Plays as the computer opponent over TCP: K untimed quick matches in a row (default 1), or the
game CODE (joined as its second player; then K must be 1).
  --level N     bot strength, 1 (weakest) to 5 (strongest; under half a second a turn)
  --name NAME   display name (default bot-<level>)
  --seed S      varies the bot's choices among equal ones (default 1)
  --verbose     print every turn
exit codes: 0 every game was played to its end, 1 a connection or protocol failure,
            2 a usage error
)";

constexpr int kMaxErrorsPerGame = 5;
constexpr int kReconnectTries = 5;

struct Options {
    std::string host;
    unsigned short port = 0;
    int level = 0;
    int games = 1;
    std::string code;
    std::string name;
    std::uint64_t seed = 1;
    bool verbose = false;
};

int usage_error(const std::string& msg) {
    std::cerr << "trunkfield bot: " << msg << "\n" << kUsage;
    return 2;
}

bool parse_u64(const std::string& s, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const std::uint64_t v = std::stoull(s);
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

std::optional<std::string> parse_args(const std::vector<std::string>& args, Options& o) {
    std::string server;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& k = args[i];
        if (k == "--verbose") {
            o.verbose = true;
            continue;
        }
        if (i + 1 >= args.size()) return "missing value after " + k;
        const std::string& v = args[++i];
        std::uint64_t n = 0;
        if (k == "--server") {
            server = v;
        } else if (k == "--level") {
            if (!parse_u64(v, kMinBotLevel, kMaxBotLevel, n)) return "--level must be 1 to 5";
            o.level = int(n);
        } else if (k == "--games") {
            if (!parse_u64(v, 1, 1'000'000, n)) return "--games must be a whole number >= 1";
            o.games = int(n);
        } else if (k == "--code") {
            if (v.empty() || v.size() > 64) return "bad --code";
            o.code = v;
        } else if (k == "--name") {
            if (v.empty() || v.size() > 32) return "--name must be 1 to 32 bytes";
            o.name = v;
        } else if (k == "--seed") {
            if (!parse_u64(v, 0, UINT64_MAX / 2, n)) return "bad --seed";
            o.seed = n;
        } else {
            return "unknown option " + k;
        }
    }
    if (server.empty()) return "--server HOST:PORT is required";
    const size_t colon = server.rfind(':');
    std::uint64_t port = 0;
    if (colon == std::string::npos || colon == 0 ||
        !parse_u64(server.substr(colon + 1), 1, 65535, port))
        return "--server must be HOST:PORT";
    o.host = server.substr(0, colon);
    o.port = static_cast<unsigned short>(port);
    if (!o.level) return "--level N is required";
    if (!o.code.empty() && o.games != 1) return "--code plays one game: leave out --games";
    if (o.name.empty()) o.name = "bot-" + std::to_string(o.level);
    return std::nullopt;
}

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A failure that ends the run (exit code 1).
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Tally {
    int won = 0, drawn = 0, lost = 0, aborted = 0;
};

class BotClient {
  public:
    explicit BotClient(const Options& o) : o_(o) {}

    int run() {
        Tally t;
        try {
            connect(false);
            for (int i = 1; i <= o_.games; ++i) play_game(i, t);
        } catch (const Failure& e) {
            std::cerr << "trunkfield bot: " << e.what() << "\n";
            return 1;
        }
        std::cout << "bot: " << o_.games << (o_.games == 1 ? " game" : " games") << ": " << t.won
                  << " won, " << t.drawn << " drawn, " << t.lost << " lost, " << t.aborted
                  << " aborted\n";
        return 0;
    }

  private:
    // The state of the game being played.
    struct Seat {
        std::string code;
        std::optional<Side> side;
        std::optional<Game> game;
        std::int64_t version = -1;
        std::string pending;              // ref of the setup/turn awaiting ack or error
        std::int64_t acked = -1;          // our last acknowledged move's event version
        bool resyncing = false;           // a watch was sent: wait for its snapshot before acting
        bool seated[2] = {false, false};  // both seats filled: the game has started
        int errors = 0;
        bool over = false;
        bool aborted = false;
        json result;
    };

    void connect(bool again) {
        conn_.reset();
        try {
            conn_ = client::connect_tcp(o_.host, o_.port);
        } catch (const std::exception& e) {
            throw Failure("cannot connect to " + o_.host + ":" + std::to_string(o_.port) + ": " +
                          e.what());
        }
        json hello = {{"type", "hello"}, {"version", 1}, {"name", o_.name}};
        if (again && !token_.empty()) hello["token"] = token_;
        conn_->send(hello);
        for (;;) {
            const json m = recv();
            const std::string type = m.value("type", "");
            if (type == "welcome") {
                if (!m.contains("token") || !m["token"].is_string() || !m.contains("player_id") ||
                    !m["player_id"].is_string())
                    throw Failure("malformed welcome: " + m.dump());
                token_ = m["token"];
                player_id_ = m["player_id"];
                if (!again)
                    std::cout << "bot: connected to " << o_.host << ":" << o_.port << " as "
                              << m.value("name", o_.name) << " (level " << o_.level << ")\n";
                return;
            }
            if (type == "error") throw Failure("hello refused: " + m.dump());
        }
    }

    // Receives one message (a non-JSON line is a protocol failure).
    json recv() {
        const std::string text = conn_->recv_text();
        json m = json::parse(text, nullptr, false);
        if (m.is_discarded() || !m.is_object()) throw Failure("the server sent non-JSON: " + text);
        return m;
    }

    // Receives, reconnecting with the token (and watching the game again) if the connection
    // drops.
    json recv_reconnecting(Seat& s, bool seeking) {
        for (int attempt = 0;; ++attempt) {
            try {
                return recv();
            } catch (const client::Closed& e) {
                if (attempt >= kReconnectTries)
                    throw Failure(std::string("connection lost: ") + e.what());
                std::cerr << "bot: connection lost (" << e.what() << "), reconnecting\n";
                std::this_thread::sleep_for(std::chrono::milliseconds(500 << attempt));
                try {
                    connect(true);
                } catch (const Failure&) {
                    continue;
                }
                s.pending.clear();
                s.resyncing = false;
                if (!s.code.empty())
                    resync(s);
                else if (seeking)
                    seek(s);
            }
        }
    }

    void seek(const Seat& s) {
        if (!o_.code.empty())
            conn_->send({{"type", "join_game"}, {"code", o_.code}});
        else if (s.code.empty())
            conn_->send({{"type", "quick_match"}, {"time_control", nullptr}});
    }

    void play_game(int index, Tally& tally) {
        Seat s;
        const std::string label = "game " + std::to_string(index) + "/" + std::to_string(o_.games);
        seek(s);
        while (!s.over) {
            const json m = recv_reconnecting(s, s.code.empty());
            handle(s, m, label);
            if (!s.over) act(s, index);
        }
        if (s.aborted || !s.side) {
            ++tally.aborted;
            std::cout << "bot: " << label << " " << s.code << " ended without a result ("
                      << s.result.value("reason", std::string("aborted")) << ")\n";
            return;
        }
        const std::string me(side_name(*s.side));
        const json w = s.result.value("winner", json());
        const std::string outcome = !w.is_string() || w == "draw" ? "drawn"
                                    : w == me                     ? "won"
                                                                  : "lost";
        (outcome == "won" ? tally.won : outcome == "lost" ? tally.lost : tally.drawn)++;
        std::cout << "bot: " << label << " " << s.code << " over (" << s.result.value("reason", "")
                  << "): silver " << s.result["score"].value("silver", 0) << ", bronze "
                  << s.result["score"].value("bronze", 0) << "; the bot played " << me << " and "
                  << outcome << "\n";
    }

    void resync(Seat& s) {
        s.pending.clear();
        s.acked = -1;
        if (s.code.empty() || s.resyncing) return;
        s.resyncing = true;
        conn_->send({{"type", "watch"}, {"code", s.code}});
    }

    void handle(Seat& s, const json& m, const std::string& label) {
        const std::string type = m.value("type", "");
        if (type == "quick_match_waiting") {
            std::cout << "bot: " << label << ": waiting for an opponent\n";
        } else if (type == "matched") {
            s.code = m.value("code", "");
            if (auto side = parse_side(m.value("side", ""))) s.side = side;
            std::cout << "bot: " << label << ": matched in " << s.code << " as "
                      << m.value("side", "?") << "\n";
        } else if (type == "snapshot") {
            on_snapshot(s, m, label);
        } else if (type == "event") {
            if (m.value("game", "") == s.code) on_event(s, m);
        } else if (type == "ack") {
            if (m.value("ref", "") == s.pending) {
                s.pending.clear();
                s.acked = m.value("version", std::int64_t(-1));  // its event follows
            }
        } else if (type == "error") {
            on_error(s, m);
        }
        // Anything else (lobby, live, pong...) does not concern a bot.
    }

    void on_snapshot(Seat& s, const json& m, const std::string& label) {
        const std::string code = m.value("game", "");
        if (!s.code.empty() && code != s.code) return;
        const bool first = s.code.empty() || !s.game;
        s.code = code;
        if (!m.contains("state")) throw Failure("snapshot without state: " + m.dump());
        auto g = game_from_json(m["state"]);
        if (!g) throw Failure("cannot load the snapshot's state: " + g.error().message);
        s.game = std::move(*g);
        s.version = m.value("version", std::int64_t(0));
        s.pending.clear();
        s.acked = -1;
        s.resyncing = false;
        if (m.contains("players") && m["players"].is_object())
            for (Side side : {Side::Silver, Side::Bronze}) {
                const json p = m["players"].value(std::string(side_name(side)), json());
                s.seated[idx(side)] = p.is_object();
                if (p.is_object() && p.value("id", "") == player_id_) s.side = side;
            }
        const std::string status = m.value("status", "");
        if (first)
            std::cout << "bot: " << label << ": game " << s.code << ", playing "
                      << (s.side ? std::string(side_name(*s.side)) : std::string("no seat"))
                      << "\n";
        if (!s.side) throw Failure("not seated in game " + s.code);
        if (status == "over" || status == "aborted" || status == "cancelled") {
            s.over = true;
            s.aborted = status != "over";
            s.result = result_to_json(*s.game);
            if (s.aborted) s.result["reason"] = status;
        }
    }

    void on_event(Seat& s, const json& m) {
        const std::int64_t v = m.value("version", std::int64_t(-1));
        if (!s.game || v <= s.version) return;     // before our snapshot, or already in it
        if (v != s.version + 1) return resync(s);  // a gap: ask for a snapshot
        s.version = v;
        const std::string kind = m.value("kind", "");
        const json p = m.value("payload", json::object());
        const auto side = parse_side(p.value("side", ""));
        Game& g = *s.game;
        bool ok = true;
        if (kind == "join" && side) {
            s.seated[idx(*side)] = true;
        } else if (kind == "setup" && side) {
            auto st = setup_from_json(p.value("setup", json()));
            ok = st && !g.apply_setup(*side, *st);
        } else if (kind == "turn") {
            auto t = turn_from_json(p.value("turn", json()));
            ok = t && !g.apply_turn(*t);
            if (ok && o_.verbose && side)
                std::cout << "  " << g.turns_played() << " " << side_name(*side) << " "
                          << turn_to_notation(*t, g.variant().size) << "\n";
        } else if (kind == "resign" && side) {
            g.resign(*side);
        } else if (kind == "timeout" && side) {
            g.resign(*side, EndReason::Time);
        } else if (kind == "abandon" && side) {
            g.resign(*side, EndReason::Abandon);
        } else if (kind == "draw_accept") {
            g.agree_draw();
        } else if (kind == "draw_offer" && side && side != s.side) {
            conn_->send({{"type", "draw_decline"}, {"game", s.code}});
        } else if (kind == "abort") {
            s.aborted = true;
        } else if (kind == "game_over") {
            s.over = true;
            s.result = p;
        }
        if (!ok) {
            std::cerr << "bot: event " << v << " does not apply to our copy of " << s.code
                      << "; resynchronising\n";
            resync(s);
        }
    }

    void on_error(Seat& s, const json& m) {
        const std::string ref = m.value("ref", "");
        const std::string code = m.value("code", "");
        if (s.code.empty() && !o_.code.empty())
            throw Failure("cannot join game " + o_.code + ": " + code + ": " +
                          m.value("message", ""));
        if (s.code.empty() && o_.code.empty())
            throw Failure("quick match refused: " + code + ": " + m.value("message", ""));
        if (ref.empty() || ref != s.pending) return;  // not about our move (e.g. draw_decline)
        std::cerr << "bot: " << s.code << ": our move " << ref << " was refused: " << code << " "
                  << m.value("rule", "") << " " << m.value("message", "") << "\n";
        if (++s.errors > kMaxErrorsPerGame) {
            conn_->send({{"type", "resign"}, {"game", s.code}});
            throw Failure("too many refused moves in game " + s.code);
        }
        resync(s);
    }

    // Sends our setup or turn when our seat is to move and nothing of ours is pending.
    void act(Seat& s, int index) {
        if (!s.game || !s.side || !s.pending.empty() || s.over || s.resyncing ||
            s.version < s.acked || !s.seated[0] || !s.seated[1])
            return;
        const Game& g = *s.game;
        if (g.over() || g.to_move() != *s.side) return;
        BotOptions bo;
        bo.level = o_.level;
        bo.seed = mix(o_.seed ^ mix(std::uint64_t(index))) ^ std::uint64_t(g.turns_played());
        const std::string ref = "b" + std::to_string(++refs_);
        json msg = {{"game", s.code}, {"version", s.version}, {"ref", ref}};
        if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
            auto st = bot_setup(g, bo);
            if (!st) throw Failure("bot_setup: " + st.error().message);
            msg["type"] = "setup";
            msg["setup"] = to_json(*st);
        } else if (g.phase() == Phase::Play) {
            auto t = bot_turn(g, bo);
            if (!t) throw Failure("bot_turn: " + t.error().message);
            msg["type"] = "turn";
            msg["turn"] = to_json(*t);
        } else {
            return;
        }
        s.pending = ref;
        conn_->send(msg);
    }

    Options o_;
    std::unique_ptr<client::Connection> conn_;
    std::string token_, player_id_;
    std::uint64_t refs_ = 0;
};

}  // namespace

int bot_command(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::cout << kUsage;
        return 0;
    }
    Options o;
    if (auto err = parse_args(args, o)) return usage_error(*err);
    std::cout << std::unitbuf;  // progress lines appear as they happen, also in a pipe
    try {
        return BotClient(o).run();
    } catch (const std::exception& e) {  // e.g. a write to a closed socket
        std::cerr << "trunkfield bot: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace tf::cli
