#include "bench/loadgen_game.h"

#include <boost/asio/post.hpp>
#include <cstdio>
#include <cstdlib>

#include "common/json.h"
#include "proto/messages.h"

namespace tf::loadgen {

namespace net = boost::asio;

namespace {

std::int64_t micros(Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

}  // namespace

void Tally::merge(const Tally& o) {
    ack.merge(o.ack);
    opp.merge(o.opp);
    spec.merge(o.spec);
    for (int i = 0; i < 3; ++i) spec_by[i].merge(o.spec_by[i]);
    lag.merge(o.lag);
    moves.insert(moves.end(), o.moves.begin(), o.moves.end());
    scheduled += o.scheduled;
    sent += o.sent;
    delivered += o.delivered;
    games_started += o.games_started;
    lost += o.lost;
    undelivered += o.undelivered;
    out_of_order += o.out_of_order;
    for (auto& [k, v] : o.errors) errors[k] += v;
}

Slot::Slot(int id, net::io_context& ioc, const Options& opt, Connector& connector)
    : id_(id),
      opt_(opt),
      connector_(connector),
      strand_(net::make_strand(ioc)),
      timer_(strand_),
      rng_(opt.seed * 0x9e3779b97f4a7c15ULL + std::uint64_t(id)) {}

void Slot::connect() {
    int n = 2 + opt_.spectators;
    st_.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) conns_.push_back(make_conn(opt_.transport, strand_, *this, i));
    for (auto& c : conns_) connector_.add(c);
}

void Slot::error(const std::string& what) {
    ++tally_.errors[what];
}

void Slot::on_open(Conn& c) {
    if (opt_.proto == Proto::Trunkfield) {
        c.send(R"({"type":"hello","version":1,"name":"loadgen"})");
        return;
    }
    std::string room = opt_.run_id + "-" + std::to_string(id_);
    c.send(R"({"type":"join","room":")" + room + R"(","role":")" +
           (c.tag < 2 ? "player" : "spectator") + "\"}");
}

void Slot::mark_ready(Conn& c) {
    auto& st = st_[std::size_t(c.tag)];
    if (st.ready) return;
    st.ready = true;
    ++settled_;
}

void Slot::on_fail(Conn& c, const char* what, const std::string& message) {
    error(std::string("conn_") + what + ": " + message);
    mark_ready(c);  // settled, if it was still connecting
    if (c.tag < 2 && stage_ != Stage::Dead) {
        stage_ = Stage::Dead;  // a game without both players cannot go on
        flight_.active = false;
        scheduling_ = false;
        timer_.cancel();
    }
}

// Relay messages are scanned for their few fields (bench/relay/relay.mjs); ours are read with
// proto::parse_server(), as every client of the server reads them, except a spectator's events,
// which are scanned as the relay's are (see below).
void Slot::on_message(Conn& c, std::string_view text) {
    auto& st = st_[std::size_t(c.tag)];
    if (opt_.proto == Proto::Relay) {
        Fields f;
        if (!scan_fields(text, f) || f.type.empty()) return error("unparsable_message");
        if (f.type == "joined") {
            st.cur = {opt_.run_id + "-" + std::to_string(id_), 0};
            return mark_ready(c);
        }
        if (f.type == "error") {
            mark_ready(c);
            return error("relay_" + std::string(f.code));
        }
        if ((f.type == "turn" || f.type == "setup") && f.version)
            return on_sequence(c, f.game, *f.version + 1, f.type);
        return error("unexpected_" + std::string(f.type));
    }
    if (c.tag >= 2) {
        // A spectator's events are scanned like the relay's messages, so that the generator's
        // own cost per spectator message (which paces the measured p99 once the server sends
        // faster than the generator reads) is the same for both servers. Anything else (the
        // snapshot, errors) is read in full below.
        Fields f;
        if (scan_fields(text, f) && f.type == "event" && f.version) {
            if (f.kind == "spectators") return;  // not versioned (PROTOCOL.md)
            return on_sequence(c, f.game, *f.version, f.kind);
        }
    }
    auto parsed = proto::parse_server(text);
    if (std::holds_alternative<proto::Error>(parsed)) return error("unparsable_message");
    const auto& msg = std::get<proto::ServerMsg>(parsed);
    if (auto* e = std::get_if<proto::Event>(&msg)) {
        // Not versioned (PROTOCOL.md): outside the sequence.
        if (std::holds_alternative<proto::SpectatorsEv>(e->body)) return;
        return on_sequence(c, e->game, e->version, proto::event_kind(e->body));
    }
    if (auto* a = std::get_if<proto::Ack>(&msg)) return on_ack(a->ref.value_or(""), a->version);
    if (std::holds_alternative<proto::Welcome>(msg)) return mark_ready(c);
    if (auto* g = std::get_if<proto::GameCreated>(&msg)) {
        if (c.tag == 0 && stage_ == Stage::Creating) on_created(g->code);
        return;
    }
    if (auto* snap = std::get_if<proto::SnapshotMsg>(&msg)) {
        if (snap->game == st.cur.code && st.cur.last < 0) st.cur.last = snap->version;
        if (c.tag == 1 && stage_ == Stage::Joining && snap->game == code_) {
            joined_[1] = true;
            check_started();
        }
        return;
    }
    if (auto* err = std::get_if<proto::ErrorMsg>(&msg)) {
        error("server_" + std::string(proto::err_name(err->code)));
        if (c.tag >= 2) return;
        std::erase_if(unacked_, [&](const Unacked& u) { return err->ref && u.ref == *err->ref; });
        // A refused move or game request: this game cannot go on as planned; start another.
        flight_.active = false;
        if (stage_ != Stage::Dead && stage_ != Stage::Idle) start_game();
        return;
    }
    if (std::holds_alternative<proto::Pong>(msg) || std::holds_alternative<proto::Lobby>(msg) ||
        std::holds_alternative<proto::Live>(msg))
        return;
    error("unexpected_message");
}

void Slot::begin(TimePoint first_due, Window w) {
    net::post(strand_, [this, first_due, w] {
        window_ = w;
        next_due_ = first_due;
        scheduling_ = opt_.rate > 0 && stage_ != Stage::Dead;
        if (scheduling_)
            interval_ = std::chrono::nanoseconds(std::int64_t(1e9 * opt_.games / opt_.rate));
        if (stage_ == Stage::Dead) return;
        if (opt_.proto == Proto::Trunkfield) {
            start_game();
        } else {
            code_ = opt_.run_id + "-" + std::to_string(id_);
            stage_ = Stage::Playing;
            ready_since_ = Clock::now();
            ++tally_.games_started;
        }
        if (scheduling_) arm();
    });
}

void Slot::start_game() {
    if (stage_ == Stage::Dead) return;
    stage_ = Stage::Creating;
    conns_[0]->send(std::string(R"({"type":"create_game","time_control":null,"color":"silver",)") +
                    R"("public":)" + (opt_.public_games ? "true" : "false") + "}");
}

// The creator has the new game's code: the opponent joins and the spectators watch. Every
// subscription moves to the new game; the previous game's stays checked as `prev`.
void Slot::on_created(std::string_view code) {
    for (auto& st : st_) {
        if (!st.prev.code.empty() && st.prev.last >= 0 && st.prev.last < prev_final_)
            tally_.undelivered += prev_final_ - st.prev.last;
        st.prev = std::move(st.cur);
        st.cur = {std::string(code), -1};
    }
    prev_final_ = code_.empty() ? -1 : final_version_;
    prev_code_ = std::move(code_);
    code_ = std::string(code);
    version_ = 0;
    final_version_ = 0;
    stage_ = Stage::Joining;
    joined_[0] = joined_[1] = false;
    conns_[1]->send(R"({"type":"join_game","code":")" + code_ + "\"}");
    for (std::size_t i = 2; i < conns_.size(); ++i)
        conns_[i]->send(R"({"type":"watch","code":")" + code_ + "\"}");
}

void Slot::check_started() {
    if (stage_ != Stage::Joining || !joined_[0] || !joined_[1]) return;
    stage_ = Stage::Playing;
    version_ = 1;  // the join event
    game_ = Game(Variant{});
    ready_since_ = Clock::now();
    ++tally_.games_started;
    maybe_send();
}

// Every event (or relayed move) a connection receives: its version must follow the last one.
void Slot::on_sequence(Conn& c, std::string_view code, std::int64_t v, std::string_view kind) {
    auto& st = st_[std::size_t(c.tag)];
    Sub* sub = code == st.cur.code ? &st.cur : code == st.prev.code ? &st.prev : nullptr;
    if (!sub) return error("event_of_unknown_game");
    if (sub->last < 0) {
        error("event_before_snapshot");
    } else if (v <= sub->last) {
        ++tally_.out_of_order;
        return;
    } else if (v > sub->last + 1) {
        tally_.lost += v - sub->last - 1;
    }
    sub->last = v;
    if (sub != &st.cur) return;
    auto now = Clock::now();
    if (v > version_) version_ = v;
    if (c.tag >= 2) {
        const auto& [ov, origin] = origins_[std::size_t(v) % origins_.size()];
        if (ov == v && window_.in(origin)) {
            tally_.spec.add(micros(now - origin));
            tally_.spec_by[c.tag % 3].add(micros(now - origin));
        }
        return;
    }
    if (kind == "join" && c.tag == 0 && stage_ == Stage::Joining) {
        joined_[0] = true;
        return check_started();
    }
    if (flight_.active && v == flight_.version && c.tag == flight_.opponent) {
        if (window_.in(flight_.origin)) {
            const auto us = micros(now - flight_.origin);
            tally_.opp.add(us);
            if (opt_.keep_moves) tally_.moves.emplace_back(flight_.origin, us);
        }
        if (window_.in(now)) ++tally_.delivered;
        flight_.active = false;
        return after_delivery();
    }
    if (stage_ == Stage::Ending && st_[0].cur.last >= final_version_ &&
        st_[1].cur.last >= final_version_ && (scheduling_ || !pending_.empty()))
        start_game();
}

void Slot::on_ack(std::string_view ref, std::optional<std::int64_t> version) {
    for (auto it = unacked_.begin(); it != unacked_.end(); ++it) {
        if (it->ref != ref) continue;
        if (version != it->version) error("ack_with_wrong_version");
        if (window_.in(it->origin)) tally_.ack.add(micros(Clock::now() - it->origin));
        unacked_.erase(it);
        return;
    }
    error("ack_of_unknown_ref");
}

// The opponent has the move. A finished game is replaced: on the relay at once (same room),
// on trunkfield once both players saw game_over.
void Slot::after_delivery() {
    if (game_.over()) {
        if (opt_.proto == Proto::Relay) {
            game_ = Game(Variant{});
            ready_since_ = Clock::now();
            ++tally_.games_started;
        } else {
            stage_ = Stage::Ending;
            final_version_ = flight_.version + 1;  // game_over follows the last turn
            return;
        }
    }
    maybe_send();
}

void Slot::arm() {
    timer_.expires_at(next_due_);
    timer_.async_wait([this](boost::system::error_code ec) {
        if (!ec) on_timer();
    });
}

// Open loop: moves fall due every `interval_` whatever happened to the previous ones.
void Slot::on_timer() {
    auto now = Clock::now();
    while (scheduling_ && next_due_ <= now) {
        if (next_due_ >= window_.end) {
            scheduling_ = false;
            break;
        }
        pending_.push_back(next_due_);
        if (window_.in(next_due_)) ++tally_.scheduled;
        next_due_ += interval_;
    }
    maybe_send();
    if (scheduling_) arm();
}

void Slot::maybe_send() {
    if (stage_ != Stage::Playing || flight_.active || pending_.empty()) return;
    TimePoint origin = std::max(pending_.front(), ready_since_);
    pending_.pop_front();
    send_move(origin);
}

// A legal random move of the side to move (a uniformly drawn setup during the setup phase),
// applied to the local game and sent as the protocol's setup/turn message. The relay gets the
// very same text.
void Slot::send_move(TimePoint origin) {
    Side side = game_.to_move();
    std::string msg;
    std::string ref = std::to_string(++refs_);
    if (game_.phase() == tf::Phase::SetupSilver || game_.phase() == tf::Phase::SetupBronze) {
        Setup s = random_setup(game_, rng_);
        game_.apply_setup(side, s);
        ref.insert(0, "s");
        msg = R"({"type":"setup","game":")" + code_ + R"(","setup":)" + to_json(s).dump();
    } else {
        Move m;
        Turn t;
        if (random_move(game_, rng_, scratch_, m)) {
            t = game_.to_turn(m);
            game_.play(m);
        } else {
            game_.play_pass();
        }
        ref.insert(0, "t");
        msg = R"({"type":"turn","game":")" + code_ + R"(","turn":)" + to_json(t).dump();
    }
    msg += R"(,"version":)" + std::to_string(version_) + R"(,"ref":")" + ref + "\"}";
    ++version_;
    flight_ = {true, version_, origin, side == Side::Silver ? 1 : 0};
    origins_[std::size_t(version_) % origins_.size()] = {version_, origin};
    if (opt_.proto == Proto::Trunkfield)
        unacked_.push_back({std::move(ref), version_, origin});
    else  // the relay does not echo a move to its sender
        st_[side == Side::Silver ? 0 : 1].cur.last = version_;
    auto now = Clock::now();
    if (window_.in(origin)) {
        ++tally_.sent;
        tally_.lag.add(micros(now - origin));
    }
    player(side).send(std::move(msg));
}

void Slot::poll_drained() {
    net::post(strand_, [this] {
        bool d = stage_ == Stage::Dead ||
                 (!scheduling_ && pending_.empty() && !flight_.active && unacked_.empty() &&
                  stage_ != Stage::Creating && stage_ != Stage::Joining);
        std::int64_t target = stage_ == Stage::Ending ? final_version_ : version_;
        for (std::size_t i = 0; d && i < st_.size(); ++i)
            if (!conns_[i]->failed && st_[i].cur.code == code_ && st_[i].cur.last < target)
                d = false;
        drained_ = d;
    });
}

Tally Slot::finish() {
    std::int64_t target = stage_ == Stage::Ending ? final_version_ : version_;
    if (std::getenv("TF_LOADGEN_DEBUG"))
        std::fprintf(stderr,
                     "slot %d: stage %d code %s version %lld final %lld players %lld %lld\n", id_,
                     int(stage_), code_.c_str(), (long long)version_, (long long)final_version_,
                     (long long)st_[0].cur.last, (long long)st_[1].cur.last);
    for (std::size_t i = 0; i < st_.size(); ++i) {
        if (conns_[i]->failed) continue;
        const auto& st = st_[i];
        if (!st.cur.code.empty() && st.cur.code == code_) {
            if (st.cur.last < 0)
                ++tally_.undelivered;  // its snapshot never came
            else if (st.cur.last < target)
                tally_.undelivered += target - st.cur.last;
        }
        if (!st.prev.code.empty() && st.prev.last >= 0 && st.prev.last < prev_final_)
            tally_.undelivered += prev_final_ - st.prev.last;
    }
    tally_.undelivered += std::int64_t(unacked_.size());
    return std::move(tally_);
}

IdleSet::IdleSet(net::io_context& ioc, const Options& opt, Connector& connector)
    : opt_(opt), connector_(connector), strand_(net::make_strand(ioc)) {}

void IdleSet::connect() {
    done_.assign(std::size_t(opt_.idle), 0);
    for (int i = 0; i < opt_.idle; ++i)
        conns_.push_back(make_conn(opt_.transport, strand_, *this, i));
    for (auto& c : conns_) connector_.add(c);
}

std::map<std::string, std::int64_t> IdleSet::errors() {
    std::lock_guard lock(m_);
    return errors_;
}

void IdleSet::on_open(Conn& c) {
    if (opt_.proto == Proto::Trunkfield && opt_.idle_hello) {
        c.send(R"({"type":"hello","version":1,"name":"idle"})");
    } else {
        done_[std::size_t(c.tag)] = 1;
        ++ready_;
        ++settled_;
    }
}

void IdleSet::on_message(Conn& c, std::string_view text) {
    auto parsed = proto::parse_server(text);
    auto* msg = std::get_if<proto::ServerMsg>(&parsed);
    if (msg && std::holds_alternative<proto::Welcome>(*msg) && !done_[std::size_t(c.tag)]) {
        done_[std::size_t(c.tag)] = 1;
        ++ready_;
        ++settled_;
    }
}

void IdleSet::on_fail(Conn& c, const char* what, const std::string& message) {
    std::lock_guard lock(m_);
    ++errors_[std::string("idle_conn_") + what + ": " + message];
    if (!done_[std::size_t(c.tag)]) {
        done_[std::size_t(c.tag)] = 1;
        ++settled_;
    }
}

}  // namespace tf::loadgen
