// `trunkfield bot`: plays as a normal client over TCP (proto/PROTOCOL.md) with the bot engine
// of common/bot.h. It rebuilds each game from the server's snapshot and events with the rules
// library, answers with a setup or turn (with the last version seen and a ref) whenever its
// seat is to move, resynchronises with `watch` after an error or a gap, reconnects with its
// token if the connection drops, and goes on to the next game after `game_over`. It paces what
// it sends under the server's message credits (client/lib/pacer.h); when the server refuses a
// message anyway (`rate_limited`, which says not which), it slows down, pauses, and asks again
// for what may have been lost. It never waits for an answer forever: one that does not come
// within kAnswerTimeout is asked for again.
#include "bot_cmd.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "client/lib/connection.h"
#include "client/lib/game_mirror.h"
#include "client/lib/pacer.h"
#include "common/bot.h"
#include "common/notation.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

constexpr const char* kFooter =
    R"(Plays as the computer opponent (common/bot.h) over TCP: K untimed quick matches in a row,
or the game CODE (joined as its second player; then K must be 1).
exit codes: 0 every game was played to its end, 1 a connection or protocol failure,
            2 a usage error)";

constexpr int kMaxErrorsPerGame = 5;
constexpr int kReconnectTries = 5;
// After `rate_limited`: the pause before asking again, for the server to refill some credits.
constexpr std::chrono::milliseconds kRateLimitPause{1000};
// The longest wait for the answer to a seek, watch, setup or turn (or for the welcome) before
// asking again: far longer than a server takes, whose answers are never lost but may be late
// while it stores the game.
constexpr std::chrono::seconds kAnswerTimeout{10};

using Clock = std::chrono::steady_clock;

struct Options {
    std::string host;
    unsigned short port = 0;
    int level = 0;
    int games = 1;
    std::string code;
    std::string name;
    std::uint64_t seed = 1;
    bool verbose = false;
    int size = 9;  // quick matches: the standard board, or 7 (the small one)
};

// The bot's HOST:PORT: the host before the last colon, the port 1 to 65535 after it.
bool split_server(const std::string& server, std::string& host, unsigned short& port) {
    const size_t colon = server.rfind(':');
    if (colon == std::string::npos || colon == 0) return false;
    const std::string digits = server.substr(colon + 1);
    if (digits.empty() || digits.size() > 19 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const std::uint64_t n = std::stoull(digits);
    if (n < 1 || n > 65535) return false;
    host = server.substr(0, colon);
    port = static_cast<unsigned short>(n);
    return true;
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
    // The game being played: the client library's mirror of it, and what the bot waits for.
    struct Seat {
        std::string code;
        std::optional<Side> side;
        std::optional<client::GameMirror> mirror;
        std::string pending;         // ref of the setup/turn awaiting ack or error
        std::int64_t acked = -1;     // our last acknowledged move's event version
        bool resyncing = false;      // a watch was sent: wait for its snapshot before acting
        bool seek_answered = false;  // the quick match or join was answered
        std::optional<Clock::time_point> retry_at;  // rate limited: pausing until then
        Clock::time_point answer_by;  // when awaiting(): asked again if no answer by then
        int errors = 0;
        bool over() const { return mirror && mirror->finished(); }
        // Something sent awaits its answer: the seek's (and after `matched`, the game's
        // snapshot), the watch's snapshot, our move's ack or error, or the event of our
        // acknowledged move.
        bool awaiting() const {
            return !seek_answered || (!code.empty() && !mirror) || resyncing || !pending.empty() ||
                   (mirror && mirror->version() < acked);
        }
    };

    // Sends when the pacer allows (at once, unless the bot sends faster than the server's
    // credits refill). A connection that breaks under the write is dropped: the next receive
    // reconnects.
    void send(const proto::ClientMsg& m) {
        if (!conn_) return;
        const Clock::duration wait = pacer_.delay(Clock::now());
        if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
        pacer_.sent(Clock::now());
        try {
            conn_->send(proto::to_json(m));
        } catch (const std::exception& e) {
            std::cerr << "bot: cannot send (" << e.what() << ")\n";
            conn_.reset();
        }
    }

    void connect(bool again) {
        conn_.reset();
        try {
            conn_ = client::connect_tcp(o_.host, o_.port);
        } catch (const std::exception& e) {
            throw Failure("cannot connect to " + o_.host + ":" + std::to_string(o_.port) + ": " +
                          e.what());
        }
        proto::Hello hello{proto::kProtocolVersion, o_.name, std::nullopt};
        if (again && !token_.empty()) hello.token = token_;
        send(hello);
        const Clock::time_point answer_by = Clock::now() + kAnswerTimeout;
        for (;;) {
            const std::optional<proto::ServerMsg> m = recv(answer_by);
            if (!m) {
                conn_.reset();
                throw client::Closed("no welcome from the server");
            }
            if (auto* w = std::get_if<proto::Welcome>(&*m)) {
                token_ = w->token;
                player_id_ = w->player_id;
                if (!again)
                    std::cout << "bot: connected to " << o_.host << ":" << o_.port << " as "
                              << w->name << " (level " << o_.level << ")\n";
                return;
            }
            if (auto* e = std::get_if<proto::ErrorMsg>(&*m))
                throw Failure("hello refused: " + e->message);
        }
    }

    // Receives one message, or nullopt when `until` comes first; one this client cannot read is
    // a protocol failure.
    std::optional<proto::ServerMsg> recv(std::optional<Clock::time_point> until) {
        if (!conn_) throw client::Closed("not connected");
        std::string text;
        if (!until) {
            text = conn_->recv_text();
        } else if (auto t = conn_->recv_text_for(
                       std::chrono::ceil<std::chrono::milliseconds>(*until - Clock::now()))) {
            text = std::move(*t);
        } else {
            return std::nullopt;
        }
        auto parsed = proto::parse_server(text);
        if (auto* e = std::get_if<proto::Error>(&parsed))
            throw Failure("the server sent a message this client cannot read (" + e->message +
                          "): " + text);
        return std::move(std::get<proto::ServerMsg>(parsed));
    }

    // When the bot stops waiting for the next message: at the end of a pause for a rate limit,
    // or when an answer it awaits is late; never while it only waits for its opponent.
    static std::optional<Clock::time_point> deadline(const Seat& s) {
        if (s.retry_at) return s.retry_at;
        if (s.awaiting()) return s.answer_by;
        return std::nullopt;
    }

    // Receives (nullopt when deadline(s) comes first), reconnecting with the token (and
    // watching the game again) if the connection drops.
    std::optional<proto::ServerMsg> recv_reconnecting(Seat& s, bool seeking) {
        for (int attempt = 0;; ++attempt) {
            try {
                return recv(deadline(s));
            } catch (const client::Closed& e) {
                if (attempt >= kReconnectTries)
                    throw Failure(std::string("connection lost: ") + e.what());
                std::cerr << "bot: connection lost (" << e.what() << "), reconnecting\n";
                std::this_thread::sleep_for(std::chrono::milliseconds(500 << attempt));
                try {
                    connect(true);
                } catch (const Failure&) {
                    continue;
                } catch (const client::Closed&) {
                    continue;
                }
                s.pending.clear();
                s.resyncing = false;
                s.retry_at.reset();
                if (!s.code.empty())
                    resync(s);
                else if (seeking)
                    seek(s);
            }
        }
    }

    void seek(Seat& s) {
        s.seek_answered = false;
        if (!o_.code.empty())
            send(proto::JoinGame{o_.code});
        else if (s.code.empty())
            send(proto::QuickMatch{o_.size == 7 ? Variant{7, 3, 2, 30} : Variant{}, std::nullopt});
        expect_answer(s);
    }

    // What was just sent awaits its answer (Seat::awaiting()) for kAnswerTimeout at most.
    static void expect_answer(Seat& s) { s.answer_by = Clock::now() + kAnswerTimeout; }

    void play_game(int index, Tally& tally) {
        Seat s;
        const std::string label = "game " + std::to_string(index) + "/" + std::to_string(o_.games);
        seek(s);
        while (!s.over()) {
            if (auto m = recv_reconnecting(s, s.code.empty())) handle(s, *m, label);
            if (s.retry_at) {
                if (Clock::now() >= *s.retry_at) retry(s);
            } else if (s.awaiting() && Clock::now() >= s.answer_by) {
                std::cerr << "bot: no answer from the server in " << kAnswerTimeout.count()
                          << " s; asking again\n";
                retry(s);
            }
            if (!s.over()) act(s, index);
        }
        const auto& r = *s.mirror->result();
        auto reason = r.reason ? std::string(proto::reason_name(*r.reason)) : "aborted";
        if (s.mirror->status() == proto::GameStatus::Aborted || !s.side) {
            ++tally.aborted;
            std::cout << "bot: " << label << " " << s.code << " ended without a result (" << reason
                      << ")\n";
            return;
        }
        const bool mine = (r.winner == proto::Winner::Silver && *s.side == Side::Silver) ||
                          (r.winner == proto::Winner::Bronze && *s.side == Side::Bronze);
        const std::string outcome = r.winner == proto::Winner::Draw ? "drawn"
                                    : mine                          ? "won"
                                                                    : "lost";
        (outcome == "won" ? tally.won : outcome == "lost" ? tally.lost : tally.drawn)++;
        std::cout << "bot: " << label << " " << s.code << " over (" << reason << "): silver "
                  << r.score[0] << ", bronze " << r.score[1] << "; the bot played "
                  << side_name(*s.side) << " and " << outcome << "\n";
    }

    void resync(Seat& s) {
        s.pending.clear();
        s.acked = -1;
        if (s.code.empty() || s.resyncing) return;
        s.resyncing = true;
        send(proto::Watch{s.code, std::nullopt});
        expect_answer(s);
    }

    // The pause after `rate_limited` is over, or an answer is late. The message dropped may have
    // been any one sent before: the seek is sent again if nothing answered it, and a game is
    // watched again, whose snapshot shows whether our move arrived (then its ack is ignored:
    // another ref).
    void retry(Seat& s) {
        s.retry_at.reset();
        if (s.code.empty()) {
            if (!s.seek_answered) seek(s);
            return;
        }
        s.resyncing = false;  // the watch itself may have been dropped
        resync(s);
    }

    void handle(Seat& s, const proto::ServerMsg& m, const std::string& label) {
        if (std::holds_alternative<proto::QuickMatchWaiting>(m)) {
            s.seek_answered = true;
            std::cout << "bot: " << label << ": waiting for an opponent\n";
        } else if (auto* x = std::get_if<proto::Matched>(&m)) {
            s.seek_answered = true;
            s.code = x->code;
            s.side = x->side;
            expect_answer(s);  // the game's snapshot follows
            std::cout << "bot: " << label << ": matched in " << s.code << " as "
                      << side_name(x->side) << "\n";
        } else if (auto* snap = std::get_if<proto::SnapshotMsg>(&m)) {
            on_snapshot(s, *snap, label);
        } else if (auto* e = std::get_if<proto::Event>(&m)) {
            on_event(s, *e);
        } else if (auto* a = std::get_if<proto::Ack>(&m)) {
            if (a->ref && *a->ref == s.pending) {
                s.pending.clear();
                s.acked = a->version;  // its event follows
            }
        } else if (auto* err = std::get_if<proto::ErrorMsg>(&m)) {
            on_error(s, *err);
        }
        // Anything else (lobby, live, pong...) does not concern a bot.
    }

    void on_snapshot(Seat& s, const proto::SnapshotMsg& m, const std::string& label) {
        if (!s.code.empty() && m.game != s.code) return;
        const bool first = s.code.empty() || !s.mirror;
        s.seek_answered = true;
        s.code = m.game;
        s.mirror.emplace(player_id_);
        s.mirror->apply(m);
        if (s.mirror->my_side()) s.side = s.mirror->my_side();
        s.pending.clear();
        s.acked = -1;
        s.resyncing = false;
        if (first)
            std::cout << "bot: " << label << ": game " << s.code << ", playing "
                      << (s.side ? std::string(side_name(*s.side)) : std::string("no seat"))
                      << "\n";
        if (!s.side) throw Failure("not seated in game " + s.code);
        if (s.mirror->status() == proto::GameStatus::Cancelled)
            throw Failure("game " + s.code + " was cancelled");
    }

    void on_event(Seat& s, const proto::Event& e) {
        if (!s.mirror || e.game != s.code) return;
        using U = client::GameMirror::Update;
        switch (s.mirror->apply(e)) {
            case U::Gap:
                return resync(s);  // a gap: ask for a snapshot
            case U::Diverged:
                std::cerr << "bot: event " << e.version << " does not apply to our copy of "
                          << s.code << "; resynchronising\n";
                return resync(s);
            default:
                break;
        }
        if (auto* t = std::get_if<proto::TurnEv>(&e.body); t && o_.verbose)
            std::cout << "  " << s.mirror->game().turns_played() << " " << side_name(t->side) << " "
                      << turn_to_notation(t->turn, s.mirror->variant().size) << "\n";
        if (auto* d = std::get_if<proto::DrawOfferEv>(&e.body); d && d->side != s.side)
            send(proto::DrawDecline{s.code});
        if (std::holds_alternative<proto::CancelEv>(e.body))
            throw Failure("game " + s.code + " was cancelled");
    }

    void on_error(Seat& s, const proto::ErrorMsg& m) {
        if (m.code == proto::Err::RateLimited) {
            // Slowed down once per pause: the refusals of one burst arrive together.
            if (!s.retry_at) {
                pacer_.slow_down(Clock::now());
                std::cerr << "bot: rate limited by the server; now at most " << pacer_.rate()
                          << " messages a second, asking again in a moment\n";
            }
            s.retry_at = Clock::now() + kRateLimitPause;
            return;
        }
        if (m.code == proto::Err::Flooding) return;  // the server closes: reconnecting follows
        const std::string code(proto::err_name(m.code));
        if (s.code.empty() && !o_.code.empty())
            throw Failure("cannot join game " + o_.code + ": " + code + ": " + m.message);
        if (s.code.empty() && o_.code.empty())
            throw Failure("quick match refused: " + code + ": " + m.message);
        if (!m.ref || *m.ref != s.pending) return;  // not about our move (e.g. draw_decline)
        std::cerr << "bot: " << s.code << ": our move " << *m.ref << " was refused: " << code << " "
                  << m.rule.value_or("") << " " << m.message << "\n";
        if (++s.errors > kMaxErrorsPerGame) {
            send(proto::Resign{s.code});
            throw Failure("too many refused moves in game " + s.code);
        }
        resync(s);
    }

    // Sends our setup or turn when our seat is to move and nothing of ours is pending.
    void act(Seat& s, int index) {
        if (!s.mirror || !s.side || !s.pending.empty() || s.resyncing || s.retry_at ||
            s.mirror->version() < s.acked || !s.mirror->to_move(*s.side))
            return;
        const Game& g = s.mirror->game();
        BotOptions bo;
        bo.level = o_.level;
        bo.seed = mix(o_.seed ^ mix(std::uint64_t(index))) ^ std::uint64_t(g.turns_played());
        const std::string ref = "b" + std::to_string(++refs_);
        if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
            auto st = bot_setup(g, bo);
            if (!st) throw Failure("bot_setup: " + st.error().message);
            s.pending = ref;
            send(proto::SetupMsg{s.code, *st, s.mirror->version(), ref});
            expect_answer(s);
        } else if (g.phase() == Phase::Play) {
            auto t = bot_turn(g, bo);
            if (!t) throw Failure("bot_turn: " + t.error().message);
            s.pending = ref;
            send(proto::TurnMsg{s.code, *t, s.mirror->version(), ref, std::nullopt});
            expect_answer(s);
        }
    }

    Options o_;
    std::unique_ptr<client::Connection> conn_;
    client::Pacer pacer_;
    std::string token_, player_id_;
    std::uint64_t refs_ = 0;
};

}  // namespace

void add_bot_command(CLI::App& app, Run& run) {
    CLI::App* bot = app.add_subcommand("bot", "play on a server as the computer opponent");
    auto o = std::make_shared<Options>();
    auto server = std::make_shared<std::string>();
    bot->add_option("--server", *server, "the server's TCP port")
        ->type_name("HOST:PORT")
        ->required()
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                std::string host;
                unsigned short port = 0;
                return split_server(s, host, port) ? "" : "must be HOST:PORT, got '" + s + "'";
            },
            ""));
    bot->add_option("--level", o->level,
                    "bot strength, 1 (weakest) to 5 (strongest; under half a second a turn)")
        ->type_name("N")
        ->required()
        ->transform(whole_number(kMinBotLevel, kMaxBotLevel));
    bot->add_option("--games", o->games, "quick matches to play in a row")
        ->type_name("K")
        ->capture_default_str()
        ->transform(whole_number(1, 1'000'000));
    bot->add_option("--size", o->size,
                    "quick matches on the standard board (9) or the small one (7)")
        ->capture_default_str()
        ->check(CLI::IsMember({7, 9}));
    bot->add_option("--code", o->code, "join this game instead (one game: leave out --games)")
        ->type_name("CODE")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                return s.empty() || s.size() > 64 ? "bad --code '" + s + "'" : "";
            },
            ""));
    bot->add_option("--name", o->name, "display name, 1 to 32 bytes (default bot-<level>)")
        ->type_name("NAME")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                return s.empty() || s.size() > 32 ? "must be 1 to 32 bytes" : "";
            },
            ""));
    bot->add_option("--seed", o->seed, "varies the bot's choices among equal ones")
        ->type_name("S")
        ->capture_default_str()
        ->transform(whole_number(0, UINT64_MAX / 2).description(""));
    bot->add_flag("--verbose", o->verbose, "print every turn");
    bot->footer(kFooter);
    bot->callback([&run, o, server] {
        split_server(*server, o->host, o->port);
        if (!o->code.empty() && o->games != 1)
            throw CLI::ValidationError("--code plays one game: leave out --games");
        if (o->name.empty()) o->name = "bot-" + std::to_string(o->level);
        run = [o] {
            std::cout << std::unitbuf;  // progress lines appear as they happen, also in a pipe
            try {
                return BotClient(*o).run();
            } catch (const std::exception& e) {  // e.g. a write to a closed socket
                std::cerr << "trunkfield bot: " << e.what() << "\n";
                return 1;
            }
        };
    });
}

}  // namespace tf::cli
