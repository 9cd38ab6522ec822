// Session: the connection and what the server says (the player's commands are in
// play_commands.cpp).
#include "play_session.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "common/json.h"
#include "common/notation.h"
#include "common/record.h"
#include "play_input.h"

namespace tf::play {

namespace {

using Json = nlohmann::json;

// Defensive readers: a server message of the wrong shape yields empty values, never a throw.
std::string str(const Json& j, const char* key) {
    if (!j.is_object()) return "";
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
// Integers beyond ±2^53 are refused too: versions, times and counts never get there, and the
// arithmetic on them stays far from overflow.
constexpr std::int64_t kMaxInt = std::int64_t(1) << 53;
std::optional<std::int64_t> num(const Json& j, const char* key) {
    if (!j.is_object()) return std::nullopt;
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(kMaxInt))
        return std::nullopt;
    const std::int64_t v = it->get<std::int64_t>();
    if (v > kMaxInt || v < -kMaxInt) return std::nullopt;
    return v;
}
const Json& sub(const Json& j, const char* key) {
    static const Json null_json;
    if (!j.is_object()) return null_json;
    auto it = j.find(key);
    return it == j.end() ? null_json : *it;
}
std::optional<Side> side_in(const Json& j, const char* key) {
    return parse_side(str(j, key));
}

std::int64_t epoch_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string variant_text(const Json& v) {
    auto n = [&](const char* k, int d) { return num(v, k).value_or(d); };
    return std::to_string(n("size", 9)) + "x" + std::to_string(n("size", 9)) + " E" +
           std::to_string(n("elephants", 5)) + " B" + std::to_string(n("burnt", 3)) + " Q" +
           std::to_string(n("quiet", 40));
}

std::string tc_text(const Json& tc) {
    if (!tc.is_object()) return "untimed";
    auto i = num(tc, "initial_ms"), inc = num(tc, "increment_ms");
    if (!i || !inc || *i <= 0 || *inc < 0) return "?";
    return describe_time_control(proto::TimeControl{*i, *inc});
}

std::string pad(std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}

}  // namespace

Session::Session(Io& io, Options opts) : io_(io), opts_(std::move(opts)), rng_(opts_.seed) {}

// ---- connection ----------------------------------------------------------------------------

void Session::on_connected() {
    welcomed_ = false;
    proto::Hello h;
    h.version = proto::kProtocolVersion;
    if (!opts_.token.empty()) {
        h.token = opts_.token;
        hello_with_token_ = true;
    } else {
        if (!opts_.name.empty()) h.name = opts_.name;
        hello_with_token_ = false;
    }
    send(proto::to_json(h));
}

void Session::on_disconnected(const std::string& why) {
    if (welcomed_) fail("connection lost: " + why);
    welcomed_ = false;
    pending_.clear();
    if (quick_waiting_) note("(the quick-match request ended with the connection)");
    quick_waiting_ = false;
}

bool Session::send(const Json& j) {
    // Until the welcome, the server takes nothing but hello.
    if ((!welcomed_ && str(j, "type") != "hello") || !io_.send(j)) {
        fail("not connected to the server (reconnecting; try again in a moment)");
        return false;
    }
    return true;
}

void Session::note(const std::string& text) {
    say(paint(opts_.style, "2", text));
}

void Session::fail(const std::string& text) {
    say(paint(opts_.style, "1;31", text));
}

std::string Session::next_ref(const std::string& what) {
    std::string ref = "r" + std::to_string(++ref_counter_);
    pending_[ref] = what;
    if (pending_.size() > 64) pending_.erase(pending_.begin());
    return ref;
}

void Session::start_view(const std::string& code) {
    view_ = GameView{};
    view_.code = code;
    confirm_resign_.clear();
}

// ---- server messages ----------------------------------------------------------------------

void Session::on_message(std::string_view line) {
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        note("(the server sent something that is not a JSON object; ignored)");
        return;
    }
    try {
        dispatch(j);
    } catch (const std::exception& e) {
        note(std::string("(could not use a server message: ") + clean_text(e.what(), 200) + ")");
    }
}

void Session::dispatch(const Json& j) {
    const std::string type = str(j, "type");
    if (type == "welcome") return on_welcome(j);
    if (type == "error") return on_error(j);
    if (type == "snapshot") return on_snapshot(j);
    if (type == "event") return on_event(j);
    if (type == "lobby") return on_lobby(j);
    if (type == "live") return on_live(j);
    if (type == "ack") {
        pending_.erase(str(j, "ref"));
        return;
    }
    if (type == "game_created") {
        const std::string code = str(j, "code");
        if (!is_game_code(code)) return note("(game_created without a usable code)");
        start_view(code);
        say(paint(opts_.style, "1", "Game created: " + code) + "   (your opponent types:  join " +
            code + ")");
        return;
    }
    if (type == "matched") {
        const std::string code = str(j, "code");
        auto side = side_in(j, "side");
        if (!is_game_code(code)) return note("(matched without a usable code)");
        quick_waiting_ = false;
        start_view(code);
        view_.me = side;
        say(paint(opts_.style, "1", "Matched: game " + code) +
            (side ? ", you play " + side_label(*side) : ""));
        return;
    }
    if (type == "quick_match_waiting") {
        quick_waiting_ = true;
        say("Waiting for an opponent (" + variant_text(sub(j, "variant")) + ", " +
            tc_text(sub(j, "time_control")) + ").  quick cancel  to stop.");
        return;
    }
    if (type == "quick_match_cancelled") {
        if (quick_waiting_) say("Quick match cancelled.");
        quick_waiting_ = false;
        return;
    }
    // pong and message types added to the protocol later need nothing from us.
}

void Session::on_welcome(const Json& j) {
    welcomed_ = true;
    player_id_ = clean_text(str(j, "player_id"), 100);
    name_ = clean_text(str(j, "name"), 64);
    const std::string token = str(j, "token");
    if (!token.empty() && token.size() <= 256 && token != opts_.token) {
        opts_.token = token;
        io_.save_token(token);
    }
    say("Connected as " + paint(opts_.style, "1", name_) + ".  Type help for the commands.");
    std::vector<std::string> seated;
    const Json& games = sub(j, "games");
    if (games.is_array())
        for (const Json& g : games)
            if (g.is_string() && is_game_code(g.get<std::string>()))
                seated.push_back(g.get<std::string>());
    if (!view_.code.empty()) {
        // Reconnected: catch up on the game on screen from the last version seen.
        resync(false);
        return;
    }
    if (!seated.empty()) {
        say("You have a seat in: " +
            [&] {
                std::string s;
                for (auto& c : seated) s += " " + c;
                return s;
            }() +
            ".  Resuming " + seated[0] + ".");
        start_view(seated[0]);
        proto::Watch w;
        w.code = seated[0];
        send(proto::to_json(w));
    }
}

void Session::resync(bool full) {
    if (view_.code.empty()) return;
    proto::Watch w;
    w.code = view_.code;
    if (!full && view_.version >= 0) w.since_version = view_.version;
    if (full) view_.version = -1;
    send(proto::to_json(w));
}

void Session::on_error(const Json& j) {
    const std::string code = clean_text(str(j, "code"), 64);
    const std::string msg = clean_text(str(j, "message"), 400);
    const std::string ref = str(j, "ref");
    const std::string rule = clean_text(str(j, "rule"), 64);
    if (code == "bad_token" && !welcomed_ && hello_with_token_) {
        note("The saved token is not known to this server: starting a new identity.");
        opts_.token.clear();
        hello_with_token_ = false;
        proto::Hello h;
        h.version = proto::kProtocolVersion;
        if (!opts_.name.empty()) h.name = opts_.name;
        send(proto::to_json(h));
        return;
    }
    auto it = pending_.find(ref);
    std::string text;
    if (!ref.empty() && it != pending_.end()) {
        text = "The server refused " + it->second + ": " + msg;
        pending_.erase(it);
    } else {
        text = "Server: " + msg;
    }
    text += " (" + code + (rule.empty() ? "" : ", " + rule) + ")";
    fail(text);
    // A join or watch that failed leaves nothing to show.
    if (view_.version < 0 && !view_.code.empty() &&
        (code == "no_such_game" || code == "game_full" || code == "bad_message")) {
        view_ = GameView{};
        return;
    }
    auto v = num(j, "version");
    if (v && view_.version >= 0 && *v > view_.version) resync(false);
}

void Session::read_clocks(const Json& c) {
    if (!c.is_object()) {
        if (c.is_null()) view_.clock.running.reset();
        return;
    }
    auto s = num(c, "silver_ms"), b = num(c, "bronze_ms");
    if (!s || !b) return;
    view_.clock.timed = true;
    view_.clock.ms[0] = *s;
    view_.clock.ms[1] = *b;
    view_.clock.running = side_in(c, "running");
    view_.clock.received = SteadyClock::now();
    // A reading from the past (a replayed event) has been running since `at`, if the two
    // clocks roughly agree; a reading "from the future" means they don't, so it counts from now.
    if (auto at = num(c, "at")) {
        const std::int64_t lag = epoch_ms() - *at;
        if (lag > 0 && lag < 600000) view_.clock.received -= std::chrono::milliseconds(lag);
    }
}

void Session::on_snapshot(const Json& j) {
    const std::string game = str(j, "game");
    if (game.empty() || game != view_.code) return;  // a game no longer on screen
    auto version = num(j, "version");
    if (!version || *version < 0) return note("(a snapshot without a version; ignored)");

    GameView v;
    v.code = view_.code;
    v.me = view_.me;
    v.version = *version;
    v.status = clean_text(str(j, "status"), 32);
    const Json& record = sub(j, "record");
    const Json& state = sub(j, "state");
    if (auto g = game_from_json(state)) {
        v.game = std::move(*g);
    } else if (record.is_object()) {
        auto r = replay_record(record);
        if (r && !r->error) v.game = r->game;
    }
    if (!v.game && record.is_object()) {
        // Nothing set up yet: an empty board of the game's variant.
        if (auto var = variant_from_json(sub(record, "variant"))) v.game.emplace(*var);
    }
    if (!v.game) return fail("The server's snapshot of " + v.code + " could not be read.");
    const int size = v.game->variant().size;
    const Json& turns = sub(record, "turns");
    if (turns.is_array())
        for (const Json& t : turns) {
            auto parsed = turn_from_json(t);
            v.history.push_back(parsed ? turn_to_notation(*parsed, size) : "?");
        }
    v.time_control = tc_text(sub(record, "time_control"));
    const Json& players = sub(j, "players");
    for (Side s : {Side::Silver, Side::Bronze}) {
        const Json& p = sub(players, std::string(side_name(s)).c_str());
        if (!p.is_object()) continue;
        PlayerView& pv = v.players[idx(s)];
        pv.seated = true;
        pv.id = str(p, "id");
        pv.name = clean_text(str(p, "name"), 40);
        pv.away = sub(p, "away").is_object();
        if (!player_id_.empty() && pv.id == player_id_) v.me = s;
    }
    if (v.me && !v.players[idx(*v.me)].seated) v.me.reset();
    v.spectators = int(std::clamp<std::int64_t>(num(j, "spectators").value_or(0), 0, 1000000));
    v.draw_offer = side_in(j, "draw_offer");
    view_ = std::move(v);
    view_.clock.timed = view_.time_control != "untimed";
    read_clocks(sub(j, "clocks"));
    const bool over_state = sub(state, "over").is_boolean() && sub(state, "over").get<bool>();
    if (view_.status == "over" || view_.status == "aborted" || over_state) {
        view_.finished = true;
        view_.result_winner = str(state, "winner");
        view_.result_reason = view_.status == "aborted" ? "aborted" : str(state, "reason");
        const Json& score = sub(state, "score");
        view_.result_score[0] = int(num(score, "silver").value_or(0));
        view_.result_score[1] = int(num(score, "bronze").value_or(0));
    }
    print_game();
}

void Session::on_event(const Json& j) {
    if (str(j, "game") != view_.code || view_.code.empty()) return;
    auto version = num(j, "version");
    if (!version || view_.version < 0 || *version <= view_.version) return;
    if (*version > view_.version + 1) return resync(false);  // missed some: ask for them
    const std::string kind = str(j, "kind");
    view_.version = *version;
    read_clocks(sub(j, "clocks"));
    apply_event(kind, sub(j, "payload"));
}

void Session::apply_event(const std::string& kind, const Json& p) {
    auto side = side_in(p, "side");
    const std::string sname = side ? side_label(*side) : "?";
    if (kind == "join") {
        if (!side) return;
        PlayerView& pv = view_.players[idx(*side)];
        pv.seated = true;
        pv.id = str(sub(p, "player"), "id");
        pv.name = clean_text(str(sub(p, "player"), "name"), 40);
        if (!player_id_.empty() && pv.id == player_id_) view_.me = side;
        if (view_.status == "open") view_.status = "playing";
        say(pv.name + " joined as " + sname + ".");
        return print_game();
    }
    if (kind == "setup" || kind == "turn") {
        if (!side || !view_.game) return resync(true);
        Game& g = *view_.game;
        std::optional<RuleError> err;
        if (kind == "setup") {
            auto s = setup_from_json(sub(p, "setup"));
            err = s ? g.apply_setup(*side, *s) : s.error();
        } else {
            auto t = turn_from_json(sub(p, "turn"));
            if (t) {
                err = g.apply_turn(*t);
                if (!err) {
                    view_.history.push_back(turn_to_notation(*t, g.variant().size));
                    view_.last_cells.clear();
                    if (t->elephant) {
                        view_.last_cells.push_back(t->elephant->from);
                        for (Cell c : t->elephant->path) view_.last_cells.push_back(c);
                    }
                    if (view_.draw_offer == side) view_.draw_offer.reset();
                }
            } else {
                err = t.error();
            }
        }
        if (err) {
            note("(the local board disagrees with the server: " + err->message + "; resyncing)");
            return resync(true);
        }
        return print_game();
    }
    if (kind == "game_over") {
        view_.finished = true;
        const std::string reason = str(p, "reason");
        view_.result_reason = clean_text(reason, 32);
        view_.result_winner = str(p, "winner");
        const Json& score = sub(p, "score");
        view_.result_score[0] = int(num(score, "silver").value_or(0));
        view_.result_score[1] = int(num(score, "bronze").value_or(0));
        view_.status = reason == "aborted" ? "aborted" : "over";
        view_.clock.running.reset();
        view_.draw_offer.reset();
        return print_game();
    }
    if (kind == "chat") {
        const Json& from = sub(p, "from");
        std::string who = clean_text(str(from, "name"), 40);
        const std::string id = str(from, "id");
        const Style& st = opts_.style;
        const char* sgr = "1";
        for (Side s : {Side::Silver, Side::Bronze})
            if (view_.players[idx(s)].seated && view_.players[idx(s)].id == id)
                sgr = s == Side::Silver ? "1;96" : "1;33";
        say(paint(st, sgr, "<" + who + ">") + " " + clean_text(str(p, "text"), 600));
        return;
    }
    if (kind == "resign") return say(paint(opts_.style, "1", sname + " resigned."));
    if (kind == "cancel") {
        view_.status = "cancelled";
        return say("Game " + view_.code + " was cancelled by its creator.");
    }
    if (kind == "draw_offer") {
        view_.draw_offer = side;
        if (view_.me && side && *view_.me != *side)
            return say(paint(opts_.style, "1", sname + " offers a draw:") +
                       " type  draw  to accept or  draw decline  to refuse.");
        return say(sname + " offers a draw.");
    }
    if (kind == "draw_decline") {
        view_.draw_offer.reset();
        return say(sname + " declined the draw.");
    }
    if (kind == "draw_accept") return say(sname + " accepted the draw.");
    if (kind == "timeout") return say(paint(opts_.style, "1", sname + " ran out of time."));
    if (kind == "player_left") {
        if (side) view_.players[idx(*side)].away = true;
        std::string when;
        if (auto at = num(p, "claim_at")) {
            std::int64_t s = (*at - epoch_ms() + 999) / 1000;
            if (s > 0 && s < 100000) when = " in " + std::to_string(s) + " s";
        }
        std::string text = sname + " lost the connection.";
        if (view_.me && side && *view_.me != *side && !view_.finished)
            text += " If they do not come back you can  claim  the win" +
                    (when.empty() ? std::string(" after the grace period") : when) + ".";
        return say(text);
    }
    if (kind == "player_back") {
        if (side) view_.players[idx(*side)].away = false;
        return say(sname + " is back.");
    }
    if (kind == "abandon") {
        const bool claimed = sub(p, "claimed").is_boolean() && sub(p, "claimed").get<bool>();
        return say(sname + " lost by abandonment" + (claimed ? " (claimed)." : " (awarded)."));
    }
    if (kind == "abort") {
        view_.abort_reason = clean_text(str(p, "reason"), 32);
        return say("The game was aborted (" + view_.abort_reason + ").");
    }
    // Kinds added to the protocol later: nothing to show.
}

void Session::on_lobby(const Json& j) {
    if (!want_lobby_) return;
    want_lobby_ = false;
    const Json& games = sub(j, "games");
    if (!games.is_array() || games.empty()) return say("No open games.  create  makes one.");
    std::string out = "Open games (join CODE):\n";
    for (const Json& g : games) {
        std::string side = str(g, "creator_side");
        out += "  " + pad(clean_text(str(g, "code"), 16), 8) +
               pad(variant_text(sub(g, "variant")), 16) + pad(tc_text(sub(g, "time_control")), 10) +
               clean_text(str(sub(g, "creator"), "name"), 40) +
               (side.empty() ? "" : " (plays " + clean_text(side, 10) + ")") + "\n";
    }
    say(out);
}

void Session::on_live(const Json& j) {
    if (!want_live_) return;
    want_live_ = false;
    const Json& games = sub(j, "games");
    if (!games.is_array() || games.empty()) return say("No games are being played.");
    std::string out = "Live games (watch CODE):\n";
    for (const Json& g : games) {
        const Json& pl = sub(g, "players");
        const Json& sc = sub(g, "score");
        out += "  " + pad(clean_text(str(g, "code"), 16), 8) +
               pad(variant_text(sub(g, "variant")), 16) +
               clean_text(str(sub(pl, "silver"), "name"), 40) + " vs " +
               clean_text(str(sub(pl, "bronze"), "name"), 40) + "  turn " +
               std::to_string(num(g, "turns").value_or(0)) + "  score " +
               std::to_string(num(sc, "silver").value_or(0)) + "-" +
               std::to_string(num(sc, "bronze").value_or(0)) + "\n";
    }
    say(out);
}

// ---- drawing -----------------------------------------------------------------------------

std::string Session::hint() const {
    if (!view_.game || !view_.my_move()) return "";
    const Game& g = *view_.game;
    const int n = g.variant().size;
    if (g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze) {
        const bool silver = *view_.me == Side::Silver;
        std::string zone = silver ? "b1.." + cell_name({n, 1}, n) : "a2..a" + std::to_string(n);
        return "Your setup: " + std::to_string(g.variant().elephants) + " cells of " + zone +
               ", then 2 ring cells for your guardians, e.g.  setup " +
               [&] {
                   Rng r(7);
                   return setup_to_text(random_setup(g, r), n);
               }() +
               "   or  setup auto";
    }
    if (g.phase() != Phase::Play) return "";
    auto list = std::make_unique<MoveList>();
    g.generate_paths(*list);
    if (list->size == 0)
        return "Your turn. No elephant can move: type  pass  (you may still burn a trunk or move "
               "guardians, e.g.  pass *e5).";
    return "Your turn: type it in notation (e.g. " +
           turn_to_notation(Turn{g.to_elephant_move([&] {
                                     Move m = (*list)[0];
                                     if (m.facing == kAnyFacing) m.facing = u8(Dir::N);
                                     return m;
                                 }()),
                                 std::nullopt,
                                 {}},
                            n) +
           ");  moves CELL  lists an elephant's moves.";
}

void Session::print_game() {
    if (!view_.game) return;
    std::string out = render_game(view_, opts_.style, SteadyClock::now());
    std::string h = hint();
    if (!h.empty()) out += paint(opts_.style, "1", h) + "\n";
    say(out);
}

bool Session::clock_running() const {
    return view_.clock.timed && view_.clock.running && !view_.finished && view_.status == "playing";
}

std::string Session::prompt(SteadyClock::time_point now, bool online) const {
    const Style& st = opts_.style;
    std::string p;
    if (!online) p = paint(st, "1;31", "offline") + " ";
    if (view_.code.empty())
        return p + (quick_waiting_ ? "lobby (waiting for a match)> " : "lobby> ");
    p += "[" + view_.code;
    if (view_.game && view_.version >= 0) {
        const Game& g = *view_.game;
        if (view_.finished) {
            p += " over";
        } else if (view_.status == "open") {
            p += " waiting";
        } else if (view_.status == "playing" && !g.over()) {
            const bool setup = g.phase() == Phase::SetupSilver || g.phase() == Phase::SetupBronze;
            if (view_.my_move())
                p += paint(st, "1;7", setup ? " your setup " : " your turn ");
            else
                p += " " + side_label(g.to_move()) + (setup ? "'s setup" : " to move");
        }
        if (view_.clock.timed)
            p += " S " + format_clock(view_.clock.left(Side::Silver, now)) + " b " +
                 format_clock(view_.clock.left(Side::Bronze, now));
        if (view_.me) p += std::string(" you:") + (*view_.me == Side::Silver ? "S" : "b");
    } else {
        p += " ...";
    }
    return p + "]> ";
}

}  // namespace tf::play
