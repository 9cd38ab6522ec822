// The seat player of bridge_client.h. It paces what it sends under the server's message credits
// (client/lib/pacer.h); when the server refuses a message anyway (`rate_limited`, which says not
// which), it slows down, pauses, and asks again for what may have been lost. It never waits for
// an answer forever: one that does not come within kAnswerTimeout is asked for again.
#include "bridge_client.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "client/lib/connection.h"
#include "client/lib/pacer.h"
#include "common/json.h"
#include "common/notation.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

constexpr int kMaxErrorsPerGame = 5;
constexpr int kReconnectTries = 5;
// The longest pause between two reconnection attempts when reconnecting for ever.
constexpr std::chrono::milliseconds kLongestPause{8000};
// After `rate_limited`: the pause before asking again, for the server to refill some credits.
constexpr std::chrono::milliseconds kRateLimitPause{1000};
// The longest wait for the answer to a seek, watch, setup or turn (or for the welcome) before
// asking again: far longer than a server takes, whose answers are never lost but may be late
// while it stores the game.
constexpr std::chrono::seconds kAnswerTimeout{10};
// Source::Challenge: how long a challenge waits to be accepted before it is taken back.
constexpr std::chrono::seconds kChallengeWait{60};

using Clock = std::chrono::steady_clock;

std::int64_t epoch_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Tally {
    int won = 0, drawn = 0, lost = 0, aborted = 0;
};

class Bridge {
  public:
    Bridge(const BridgeOptions& o, Mover& mover) : o_(o), mover_(mover), token_(o.token) {}

    int run() {
        Tally t;
        try {
            for (int attempt = 0;; ++attempt) {
                try {
                    connect(false);
                    break;
                } catch (const client::Closed& e) {
                    const std::string why = unreachable_.empty() ? e.what() : unreachable_;
                    if (!o_.reconnect_forever) throw Failure(why);
                    std::cerr << o_.log << ": " << why << "; trying again\n";
                    pause_before_try(attempt);
                }
            }
            for (int i = 1; o_.games == 0 || i <= o_.games; ++i) play_game(i, t);
        } catch (const Failure& e) {
            std::cerr << "trunkfield " << o_.log << ": " << e.what() << "\n";
            return 1;
        }
        std::cout << o_.log << ": " << o_.games << (o_.games == 1 ? " game" : " games") << ": "
                  << t.won << " won, " << t.drawn << " drawn, " << t.lost << " lost, " << t.aborted
                  << " aborted\n";
        return 0;
    }

  private:
    // The game being played: the client library's mirror of it, and what the bridge waits for.
    struct Seat {
        std::string code;
        std::optional<Side> side;
        std::optional<client::GameMirror> mirror;
        std::string pending;         // ref of the setup/turn awaiting ack or error
        std::int64_t acked = -1;     // our last acknowledged move's event version
        bool resyncing = false;      // a watch was sent: wait for its snapshot before acting
        bool seek_answered = false;  // the quick match or join was answered
        bool joining = false;        // a challenge taken: its join_game awaits an answer
        bool resigned = false;       // the mover had no answer: resigned, the end follows
        std::optional<Clock::time_point> retry_at;      // rate limited: pausing until then
        std::optional<Clock::time_point> take_back_at;  // our challenge, while not accepted
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

    void say(const std::string& line) { std::cout << o_.log << ": " << line << "\n"; }

    // Before connecting again after `attempt` failed tries: 0.5 s, doubling, at most
    // kLongestPause.
    static void pause_before_try(int attempt) {
        std::this_thread::sleep_for(
            std::min(std::chrono::milliseconds(500 << std::min(attempt, 5)), kLongestPause));
    }

    // Sends when the pacer allows (at once, unless the bridge sends faster than the server's
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
            std::cerr << o_.log << ": cannot send (" << e.what() << ")\n";
            conn_.reset();
        }
    }

    // Connects to the current node, else to the next ones in turn (the first that answers
    // stays current).
    void connect(bool again) {
        conn_.reset();
        unreachable_.clear();
        const auto& nodes = o_.nodes;
        std::string why;
        for (std::size_t i = 0; i < nodes.size() && !conn_; ++i) {
            const auto& [host, port] = nodes[(node_ + i) % nodes.size()];
            try {
                conn_ = client::connect_tcp(host, port);
                node_ = (node_ + i) % nodes.size();
            } catch (const std::exception& e) {
                why += std::string(why.empty() ? "cannot connect to " : "; to ") + host + ":" +
                       std::to_string(port) + ": " + e.what();
            }
        }
        if (!conn_) {
            unreachable_ = why;
            throw client::Closed(why);
        }
        const auto& [host, port] = nodes[node_];
        proto::Hello hello{proto::kProtocolVersion, o_.name, std::nullopt};
        if (!token_.empty()) hello.token = token_;
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
                held_ = w->games;
                if (!again)
                    say("connected to " + host + ":" + std::to_string(port) + " as " + w->name +
                        (w->account ? "" : " (a guest)") + ", playing with " + mover_.describe());
                else
                    say("connected again, to " + host + ":" + std::to_string(port));
                return;
            }
            if (auto* e = std::get_if<proto::ErrorMsg>(&*m))
                throw Failure("hello refused: " + std::string(proto::err_name(e->code)) + ": " +
                              e->message);
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

    // When the bridge stops waiting for the next message: at the end of a pause for a rate
    // limit, or when an answer it awaits is late; never while it only waits for its opponent.
    static std::optional<Clock::time_point> deadline(const Seat& s) {
        if (s.retry_at) return s.retry_at;
        if (s.awaiting()) return s.answer_by;
        return s.take_back_at;
    }

    // Receives (nullopt when deadline(s) comes first), reconnecting with the token (and
    // watching the game again) if the connection drops.
    std::optional<proto::ServerMsg> recv_reconnecting(Seat& s) {
        for (int attempt = 0;; ++attempt) {
            try {
                return recv(deadline(s));
            } catch (const client::Closed& e) {
                if (attempt >= kReconnectTries && !o_.reconnect_forever)
                    throw Failure(std::string("connection lost: ") + e.what());
                std::cerr << o_.log << ": connection lost (" << e.what() << "), reconnecting\n";
                pause_before_try(attempt);
                try {
                    connect(true);
                } catch (const client::Closed&) {
                    continue;
                }
                s.pending.clear();
                s.resyncing = false;
                s.retry_at.reset();
                if (!s.code.empty() && !s.joining)
                    resync(s);
                else
                    seek(s);
                attempt = -1;
            }
        }
    }

    // Finds the next game: a game the account still holds a seat in (after a restart of the
    // bridge), a quick match, the game CODE, or (with challenges) nothing until one comes.
    void seek(Seat& s) {
        s.seek_answered = false;
        s.joining = false;
        while (!held_.empty() && played_.count(held_.front())) held_.erase(held_.begin());
        if (!held_.empty()) {
            s.code = held_.front();
            held_.erase(held_.begin());
            s.seek_answered = true;
            say("back to game " + s.code);
            resync(s);
            return;
        }
        switch (o_.source) {
            case BridgeOptions::Source::Join:
                send(proto::JoinGame{o_.code});
                break;
            case BridgeOptions::Source::QuickMatch:
                send(proto::QuickMatch{o_.size == 7 ? Variant{7, 3, 2, 30} : Variant{},
                                       std::nullopt});
                break;
            case BridgeOptions::Source::Challenges:
                s.code.clear();
                s.seek_answered = true;  // nothing asked: waiting for a challenge
                return;
            case BridgeOptions::Source::Challenge: {
                proto::CreateGame m;
                m.variant = o_.size == 7 ? Variant{7, 3, 2, 30} : Variant{};
                m.time_control = o_.clock;
                m.rated = o_.rated;
                m.to = o_.opponent;
                // The same ref when asked again: the server answers with the same game.
                m.ref = "challenge-" + std::to_string(index_);
                send(m);
                break;
            }
        }
        expect_answer(s);
    }

    // What was just sent awaits its answer (Seat::awaiting()) for kAnswerTimeout at most.
    static void expect_answer(Seat& s) { s.answer_by = Clock::now() + kAnswerTimeout; }

    void play_game(int index, Tally& tally) {
        Seat s;
        const std::string label =
            o_.games == 0 ? "game " + std::to_string(index)
                          : "game " + std::to_string(index) + "/" + std::to_string(o_.games);
        index_ = std::uint64_t(index);
        seek(s);
        while (!s.over()) {
            if (auto m = recv_reconnecting(s)) handle(s, *m, label);
            if (s.take_back_at && s.mirror && s.mirror->status() == proto::GameStatus::Open &&
                Clock::now() >= *s.take_back_at) {
                send(proto::CancelGame{s.code});  // its cancel event ends the bridge's wait
                s.take_back_at = Clock::now() + kAnswerTimeout;
            }
            if (s.retry_at) {
                if (Clock::now() >= *s.retry_at) retry(s);
            } else if (s.awaiting() && Clock::now() >= s.answer_by) {
                std::cerr << o_.log << ": no answer from the server in " << kAnswerTimeout.count()
                          << " s; asking again\n";
                retry(s);
            }
            if (!s.over()) act(s);
        }
        played_.insert(s.code);
        const auto& r = *s.mirror->result();
        auto reason = r.reason ? std::string(proto::reason_name(*r.reason)) : "aborted";
        if (s.mirror->status() == proto::GameStatus::Aborted || !s.side) {
            ++tally.aborted;
            say(label + " " + s.code + " ended without a result (" + reason + ")");
            return;
        }
        const bool mine = (r.winner == proto::Winner::Silver && *s.side == Side::Silver) ||
                          (r.winner == proto::Winner::Bronze && *s.side == Side::Bronze);
        const std::string outcome = r.winner == proto::Winner::Draw ? "drawn"
                                    : mine                          ? "won"
                                                                    : "lost";
        (outcome == "won" ? tally.won : outcome == "lost" ? tally.lost : tally.drawn)++;
        say(label + " " + s.code + " over (" + reason + "): silver " + std::to_string(r.score[0]) +
            ", bronze " + std::to_string(r.score[1]) + "; the " + o_.log + " played " +
            std::string(side_name(*s.side)) + " and " + outcome);
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
        if (s.code.empty() || s.joining) {
            if (!s.seek_answered) {
                if (s.joining)
                    send(proto::JoinGame{s.code});
                else
                    seek(s);
                expect_answer(s);
            }
            return;
        }
        s.resyncing = false;  // the watch itself may have been dropped
        resync(s);
    }

    void handle(Seat& s, const proto::ServerMsg& m, const std::string& label) {
        if (std::holds_alternative<proto::QuickMatchWaiting>(m)) {
            s.seek_answered = true;
            say(label + ": waiting for an opponent");
        } else if (auto* x = std::get_if<proto::Matched>(&m)) {
            s.seek_answered = true;
            s.code = x->code;
            s.side = x->side;
            expect_answer(s);  // the game's snapshot follows
            say(label + ": matched in " + s.code + " as " + std::string(side_name(x->side)));
        } else if (auto* c = std::get_if<proto::GameCreated>(&m)) {
            if (o_.source != BridgeOptions::Source::Challenge || !s.code.empty()) return;
            s.seek_answered = true;
            s.code = c->code;
            s.take_back_at = Clock::now() + kChallengeWait;
            expect_answer(s);  // the game's snapshot follows
            say(label + ": challenged " + o_.opponent + " (game " + s.code + ")");
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
        } else if (auto* n = std::get_if<proto::Notification>(&m)) {
            on_notification(s, n->item, label);
        }
        // Anything else (lobby, live, pong...) does not concern the bridge.
    }

    // A challenge to the account: taken when the bridge waits for one and the rules accept it,
    // else declined (`later` while it plays).
    void on_notification(Seat& s, const Json& item, const std::string& label) {
        if (o_.source != BridgeOptions::Source::Challenges) return;
        if (item.value("kind", "") == "tournament_game") return tournament_game(s, item, label);
        if (item.value("kind", "") != "challenge") return;
        const std::string code = item.value("game", "");
        if (code.empty() || code == s.code) return;
        const std::string from =
            item.contains("from") ? item["from"].value("name", "someone") : "someone";
        std::string reason;
        if (!s.code.empty()) {
            reason = "later";
        } else {
            auto v = variant_from_json(item.value("variant", Json::object()));
            std::optional<proto::TimeControl> tc;
            if (const auto& t = item.value("time_control", Json()); t.is_object()) {
                tc.emplace();
                tc->initial_ms = t.value("initial_ms", std::int64_t(0));
                tc->increment_ms = t.value("increment_ms", std::int64_t(0));
                tc->days_per_move = t.value("days_per_move", 0);
            }
            const bool bot = item.contains("from") && item["from"].is_object() &&
                             item["from"].value("bot", false);
            reason = !v ? std::string("variant")
                        : decline_reason(o_.accept, v->size, tc, item.value("rated", false), bot);
        }
        if (!reason.empty()) {
            say("declined the challenge " + code + " from " + from + " (" + reason + ")");
            send(proto::DeclineChallenge{code, reason});
            return;
        }
        say(label + ": taking the challenge " + code + " from " + from);
        s.code = code;
        s.joining = true;
        s.seek_answered = false;
        send(proto::JoinGame{code});
        expect_answer(s);
    }

    // A game a tournament the account entered paired for it (PROTOCOL.md "Tournaments"): both
    // seats are taken already, so the bridge watches it and plays; one game at a time, as with
    // challenges (a tournament game that comes during another game is left to its clock).
    void tournament_game(Seat& s, const Json& item, const std::string& label) {
        const std::string code = item.value("game", "");
        const std::string name = item.contains("tournament") && item["tournament"].is_object()
                                     ? item["tournament"].value("name", "a tournament")
                                     : std::string("a tournament");
        if (code.empty() || code == s.code) return;
        if (!s.code.empty()) {
            say("a game of " + name + " (" + code + ") came while " + s.code + " is played");
            return;
        }
        say(label + ": " + name + " paired us in " + code);
        s.code = code;
        s.seek_answered = true;
        resync(s);
    }

    void on_snapshot(Seat& s, const proto::SnapshotMsg& m, const std::string& label) {
        if (!s.code.empty() && m.game != s.code) return;
        const bool first = s.code.empty() || !s.mirror;
        s.seek_answered = true;
        s.joining = false;
        s.code = m.game;
        s.mirror.emplace(player_id_);
        s.mirror->apply(m);
        if (s.mirror->status() != proto::GameStatus::Open) s.take_back_at.reset();
        if (s.mirror->my_side()) s.side = s.mirror->my_side();
        s.pending.clear();
        s.acked = -1;
        s.resyncing = false;
        if (first)
            say(label + ": game " + s.code + ", playing " +
                (s.side ? std::string(side_name(*s.side)) : std::string("no seat")));
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
                std::cerr << o_.log << ": event " << e.version << " does not apply to our copy of "
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
        if (std::holds_alternative<proto::JoinEv>(e.body)) s.take_back_at.reset();
        if (auto* c = std::get_if<proto::CancelEv>(&e.body)) {
            if (c->declined)
                throw Failure(o_.opponent + " declined the challenge (" + *c->declined + ")");
            if (s.take_back_at)
                throw Failure(o_.opponent + " did not take the challenge within " +
                              std::to_string(kChallengeWait.count()) + " s; taken back");
            throw Failure("game " + s.code + " was cancelled");
        }
    }

    void on_error(Seat& s, const proto::ErrorMsg& m) {
        if (m.code == proto::Err::RateLimited) {
            // Slowed down once per pause: the refusals of one burst arrive together.
            if (!s.retry_at) {
                pacer_.slow_down(Clock::now());
                std::cerr << o_.log << ": rate limited by the server; now at most " << pacer_.rate()
                          << " messages a second, asking again in a moment\n";
            }
            s.retry_at = Clock::now() + kRateLimitPause;
            return;
        }
        if (m.code == proto::Err::Flooding) return;  // the server closes: reconnecting follows
        const std::string code(proto::err_name(m.code));
        if (s.joining) {  // the challenge went away meanwhile (cancelled, lapsed): wait again
            say("cannot take the challenge " + s.code + ": " + code + ": " + m.message);
            seek(s);
            return;
        }
        if (s.code.empty() && o_.source == BridgeOptions::Source::Join)
            throw Failure("cannot join game " + o_.code + ": " + code + ": " + m.message);
        if (s.code.empty() && o_.source == BridgeOptions::Source::QuickMatch)
            throw Failure("quick match refused: " + code + ": " + m.message);
        if (!m.ref || *m.ref != s.pending) return;  // not about our move (e.g. draw_decline)
        std::cerr << o_.log << ": " << s.code << ": our move " << *m.ref << " was refused: " << code
                  << " " << m.rule.value_or("") << " " << m.message << "\n";
        if (++s.errors > kMaxErrorsPerGame) {
            send(proto::Resign{s.code});
            throw Failure("too many refused moves in game " + s.code);
        }
        resync(s);
    }

    // Sends our setup or turn when our seat is to move and nothing of ours is pending. A mover
    // that cannot answer resigns the game: the bridge goes on with the next one.
    void act(Seat& s) {
        if (!s.mirror || !s.side || !s.pending.empty() || s.resyncing || s.retry_at ||
            s.mirror->version() < s.acked || !s.mirror->to_move(*s.side) || s.resigned)
            return;
        Move mv;
        try {
            mv = mover_.choose(*s.mirror, go_limits(*s.mirror, epoch_ms()), index_);
        } catch (const MoverError& e) {
            std::cerr << o_.log << ": " << s.code << ": no move (" << e.what() << "); resigning\n";
            s.resigned = true;
            send(proto::Resign{s.code});
            return;
        }
        const std::string ref = "b" + std::to_string(++refs_);
        s.pending = ref;
        if (mv.is_setup)
            send(proto::SetupMsg{s.code, mv.setup, s.mirror->version(), ref});
        else
            send(proto::TurnMsg{s.code, mv.turn, s.mirror->version(), ref, std::nullopt});
        expect_answer(s);
    }

    BridgeOptions o_;
    Mover& mover_;
    std::unique_ptr<client::Connection> conn_;
    client::Pacer pacer_;
    std::string token_, player_id_;
    std::vector<std::string> held_;  // unfinished games of the account, to play first
    std::set<std::string> played_;   // games played to their end (still held at a reconnection)
    std::uint64_t refs_ = 0, index_ = 0;
    std::size_t node_ = 0;     // which of the nodes the connection is to
    std::string unreachable_;  // why the last connection could not be made
};

}  // namespace

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

std::string decline_reason(const AcceptRules& rules, int size,
                           const std::optional<proto::TimeControl>& tc, bool rated, bool from_bot) {
    if (from_bot && rules.from == AcceptRules::From::People) return "no_bot";
    if (!from_bot && rules.from == AcceptRules::From::Bots) return "only_bot";
    if (std::find(rules.sizes.begin(), rules.sizes.end(), size) == rules.sizes.end())
        return "variant";
    if (rated && !rules.rated) return "rated";
    if (!rated && !rules.casual) return "casual";
    if (!tc) return rules.untimed ? "" : "time_control";
    if (tc->correspondence()) return rules.correspondence ? "" : "time_control";
    const std::int64_t seconds = (tc->initial_ms + 40 * tc->increment_ms) / 1000;
    if (seconds < rules.min_seconds) return "too_fast";
    if (seconds > rules.max_seconds) return "too_slow";
    return "";
}

void add_from_option(CLI::App& cmd, AcceptRules::From& from) {
    cmd.add_option_function<std::string>(
           "--from",
           [&from](const std::string& w) {
               from = w == "people" ? AcceptRules::From::People
                      : w == "bots" ? AcceptRules::From::Bots
                                    : AcceptRules::From::All;
           },
           "challenges: whose are taken, people's, bots' or all (default: all; the others are "
           "declined: no_bot, only_bot)")
        ->type_name("WHO")
        ->check(CLI::IsMember({"people", "bots", "all"}));
}

void add_server_option(CLI::App& cmd, std::vector<BridgeOptions::Node>& nodes) {
    cmd.add_option_function<std::vector<std::string>>(
           "--server",
           [&nodes](const std::vector<std::string>& list) {
               nodes.clear();
               for (const auto& s : list) {
                   BridgeOptions::Node n;
                   split_server(s, n.host, n.port);
                   nodes.push_back(n);
               }
           },
           "the server's TCP port; several: the nodes of a cluster, tried in turn")
        ->type_name("HOST:PORT")
        ->required()
        ->delimiter(',')
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                std::string host;
                unsigned short port = 0;
                return split_server(s, host, port) ? "" : "must be HOST:PORT, got '" + s + "'";
            },
            ""));
}

int run_bridge(const BridgeOptions& o, Mover& mover) {
    return Bridge(o, mover).run();
}

}  // namespace tf::cli
