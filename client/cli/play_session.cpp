// Session: the connection and what the server says (the player's commands are in
// play_commands.cpp).
#include "play_session.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "common/json.h"
#include "common/notation.h"
#include "play_input.h"
#include "play_notices.h"

namespace tf::play {

// A rating as lichess shows it: "1500?" while provisional.
static std::string rating_text(const proto::RatingView& r) {
    return std::to_string(r.rating) + (r.provisional ? "?" : "");
}

namespace {

std::int64_t epoch_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string variant_text(const Variant& v) {
    return std::to_string(v.size) + "x" + std::to_string(v.size) + " E" +
           std::to_string(v.elephants) + " B" + std::to_string(v.burnt) + " Q" +
           std::to_string(v.quiet);
}

std::string tc_text(const std::optional<proto::TimeControl>& tc) {
    return tc ? describe_time_control(*tc) : "untimed";
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
    if (start_state_ == StartState::Sent && opts_.start.kind == Start::Join) {
        start_state_ = StartState::Idle;  // asked again once welcomed again
    } else if (start_state_ == StartState::Sent) {
        fail(
            "The connection was lost before the server answered: the challenge may not have "
            "been made (if it was, it lapses without you).");
        end_start(1);
    } else if (start_state_ == StartState::Cancelling) {
        note("(the challenge lapses without you)");
        start_state_ = StartState::Done;
    }
    welcomed_ = false;
    pending_.clear();
    if (quick_waiting_) note("(the quick-match request ended with the connection)");
    quick_waiting_ = false;
}

bool Session::send(const Json& j) {
    // Until the welcome, the server takes nothing but hello.
    if ((!welcomed_ && j.value("type", "") != "hello") || !io_.send(j)) {
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
    mirror_.reset();
    confirm_resign_.clear();
}

// ---- server messages ----------------------------------------------------------------------

// Every server message goes through proto::parse_server(); the game on screen is the client
// library's GameMirror, from which the view is drawn.
void Session::on_message(std::string_view line) {
    auto parsed = proto::parse_server(line);
    if (auto* e = std::get_if<proto::Error>(&parsed)) {
        note("(the server sent a message this client cannot read: " + clean_text(e->message, 200) +
             "; ignored)");
        return;
    }
    try {
        std::visit([this](const auto& m) { on(m); }, std::get<proto::ServerMsg>(parsed));
    } catch (const std::exception& e) {
        note(std::string("(could not use a server message: ") + clean_text(e.what(), 200) + ")");
    }
}

void Session::on(const proto::Ack& m) {
    if (m.ref) pending_.erase(*m.ref);
}

void Session::on(const proto::GameCreated& m) {
    if (!proto::is_game_code(m.code)) return note("(game_created without a usable code)");
    if (opts_.start.kind == Start::Challenge && start_state_ == StartState::Sent &&
        (!m.ref || *m.ref == "challenge")) {
        start_view(m.code);
        challenge_code_ = m.code;
        start_state_ = StartState::Waiting;
        const std::string who = challenged_name();
        say(paint(opts_.style, "1", "Challenge sent to " + who + ": game " + m.code) + "  (" +
            clean_text(m.link, 80) + " on the server's web address)");
        note(who + " accepts with  trunkfield accept " + m.code +
             "  or declines with  trunkfield decline " + m.code +
             ".  Waiting for the answer; Ctrl-C (or quit) cancels the challenge.");
        return;
    }
    start_view(m.code);
    say(paint(opts_.style, "1", "Game created: " + m.code) + "   (your opponent types:  join " +
        m.code + ")");
}

void Session::on(const proto::Matched& m) {
    if (!proto::is_game_code(m.code)) return note("(matched without a usable code)");
    quick_waiting_ = false;
    start_view(m.code);
    view_.me = m.side;
    say(paint(opts_.style, "1", "Matched: game " + m.code) + ", you play " + side_label(m.side));
}

void Session::on(const proto::QuickMatchWaiting& m) {
    quick_waiting_ = true;
    say("Waiting for an opponent (" + variant_text(m.variant) + ", " + tc_text(m.time_control) +
        ").  quick cancel  to stop.");
}

void Session::on(const proto::QuickMatchCancelled&) {
    if (quick_waiting_) say("Quick match cancelled.");
    quick_waiting_ = false;
}

void Session::on(const proto::Shutdown& m) {
    note("The server is restarting (" + clean_text(m.message, 200) +
         "); this client reconnects by itself.");
}

void Session::on(const proto::Welcome& m) {
    const bool again = welcomed_;
    welcomed_ = true;
    const bool switched = again && clean_text(m.player_id, 100) != player_id_;
    player_id_ = clean_text(m.player_id, 100);
    name_ = clean_text(m.name, 64);
    account_ = m.account.has_value();
    if (!m.token.empty() && m.token.size() <= 256 && m.token != opts_.token) {
        opts_.token = m.token;
        io_.save_token(m.token);
    }
    std::string ratings;
    if (m.account)
        for (const auto& [category, r] : m.account->ratings)
            ratings +=
                (ratings.empty() ? "" : ", ") + clean_text(category, 20) + " " + rating_text(r);
    if (m.ref && *m.ref == "password")
        return say("Password changed; your other sessions are signed out.");
    if (m.ref) {  // an account request's answer
        say((m.account ? "Signed in as " : "Signed out; now the guest ") +
            paint(opts_.style, "1", name_) + (ratings.empty() ? "" : " (" + ratings + ")") + ".");
        if (!switched) return;
        view_ = GameView{};
        mirror_.reset();
    } else {
        say("Connected as " + paint(opts_.style, "1", name_) +
            (m.account ? " (account" + (ratings.empty() ? "" : ": " + ratings) + ")" : "") +
            ".  Type help for the commands.");
    }
    std::vector<std::string> seated;
    for (const auto& g : m.games)
        if (proto::is_game_code(g)) seated.push_back(g);
    if (opts_.start.kind != Start::None && start_state_ == StartState::Idle)
        return begin_start(seated);
    if (!view_.code.empty()) {
        // Reconnected: catch up on the game on screen from the last version seen.
        resync(false);
        return;
    }
    if (!seated.empty()) {
        std::string list;
        for (auto& c : seated) list += " " + c;
        say("You have a seat in:" + list + ".  Resuming " + seated[0] + ".");
        start_view(seated[0]);
        proto::Watch w;
        w.code = seated[0];
        send(proto::to_json(w));
    }
}

// ---- the start: a challenge made, or one accepted ------------------------------------------

void Session::begin_start(const std::vector<std::string>& seated) {
    const Start& st = opts_.start;
    if (st.kind == Start::Challenge) {
        if (!account_) {
            fail(
                "Only accounts challenge, and this token is a guest's: sign in first "
                "(trunkfield play, then  login NAME  or  register NAME).");
            return end_start(1);
        }
        proto::CreateGame m = st.challenge;
        m.ref = "challenge";
        if (send(proto::to_json(m))) start_state_ = StartState::Sent;
        return;
    }
    start_view(st.code);
    if (std::find(seated.begin(), seated.end(), st.code) != seated.end()) {
        start_state_ = StartState::Done;  // the seat is taken already (a join before a reconnect)
        return resync(true);
    }
    if (send(proto::to_json(proto::JoinGame{st.code}))) start_state_ = StartState::Sent;
}

void Session::end_start(int exit_code) {
    exit_code_ = exit_code;
    start_state_ = StartState::Done;
    io_.quit();
}

std::string Session::challenged_name() const {
    if (!view_.invitee.empty() && view_.code == challenge_code_) return view_.invitee;
    return clean_text(opts_.start.challenge.to.value_or("the player"), 40);
}

bool Session::challenge_waiting() const {
    return opts_.start.kind == Start::Challenge &&
           (start_state_ == StartState::Idle || start_state_ == StartState::Sent ||
            start_state_ == StartState::Waiting);
}

bool Session::challenge_settling() const {
    return start_state_ == StartState::Cancelling;
}

bool Session::cancel_challenge() {
    if (!challenge_waiting()) return false;
    exit_code_ = 1;
    if (start_state_ == StartState::Idle) {
        start_state_ = StartState::Done;  // not even asked for
        return false;
    }
    if (start_state_ == StartState::Sent) {
        note("The server has not answered yet: if the challenge was made, it lapses without you.");
        start_state_ = StartState::Done;
        return false;
    }
    if (!welcomed_ || !io_.send(proto::to_json(proto::CancelGame{challenge_code_}))) {
        note("Not connected: the challenge " + challenge_code_ + " lapses without you.");
        start_state_ = StartState::Done;
        return false;
    }
    start_state_ = StartState::Cancelling;
    return true;
}

void Session::resync(bool full) {
    if (view_.code.empty()) return;
    proto::Watch w;
    w.code = view_.code;
    if (!full && view_.version >= 0) w.since_version = view_.version;
    if (full) {
        view_.version = -1;
        mirror_.reset();
    }
    send(proto::to_json(w));
}

void Session::on(const proto::ErrorMsg& m) {
    const std::string code(proto::err_name(m.code));
    const std::string msg = clean_text(m.message, 400);
    const std::string rule = clean_text(m.rule.value_or(""), 64);
    if (m.code == proto::Err::BadToken && !welcomed_ && hello_with_token_ &&
        opts_.start.kind != Start::None) {
        fail(
            "This server does not know the token: sign in first (trunkfield play, then  login "
            "NAME).");
        return end_start(1);
    }
    if (m.code == proto::Err::BadToken && !welcomed_ && hello_with_token_) {
        note("The saved token is not known to this server: starting a new identity.");
        opts_.token.clear();
        hello_with_token_ = false;
        proto::Hello h;
        h.version = proto::kProtocolVersion;
        if (!opts_.name.empty()) h.name = opts_.name;
        send(proto::to_json(h));
        return;
    }
    auto it = m.ref ? pending_.find(*m.ref) : pending_.end();
    std::string text;
    if (it != pending_.end()) {
        text = "The server refused " + it->second + ": " + msg;
        pending_.erase(it);
    } else {
        text = "Server: " + msg;
    }
    text += " (" + code + (rule.empty() ? "" : ", " + rule) + ")";
    fail(text);
    if (start_state_ == StartState::Sent) {
        const bool about_start =
            opts_.start.kind == Start::Challenge
                ? m.ref && *m.ref == "challenge"
                : (m.game && *m.game == opts_.start.code) || m.code == proto::Err::NoSuchGame ||
                      m.code == proto::Err::GameFull || m.code == proto::Err::NotInvited ||
                      m.code == proto::Err::AccountRequired;
        if (about_start) return end_start(1);
    }
    if (start_state_ == StartState::Cancelling && m.game && *m.game == challenge_code_)
        start_state_ = StartState::Done;  // taken meanwhile: the join event says so
    // A join or watch that failed leaves nothing to show.
    if (view_.version < 0 && !view_.code.empty() &&
        (m.code == proto::Err::NoSuchGame || m.code == proto::Err::GameFull ||
         m.code == proto::Err::BadMessage)) {
        start_view("");
        return;
    }
    if (m.version && view_.version >= 0 && *m.version > view_.version) resync(false);
}

// The view the board is drawn from, copied from the mirror.
void Session::refresh_view() {
    const client::GameMirror& g = *mirror_;
    view_.version = g.version();
    view_.status = std::string(proto::status_name(g.status()));
    view_.game = g.game();
    view_.time_control = g.time_control() ? describe_time_control(*g.time_control()) : "untimed";
    for (Side s : {Side::Silver, Side::Bronze}) {
        PlayerView& pv = view_.players[idx(s)];
        const auto& seat = g.seat(s);
        pv.seated = seat.has_value();
        pv.id = seat ? seat->player.id : "";
        pv.name = seat ? clean_text(seat->player.name, 40) : "";
        pv.away = seat && seat->away;
        pv.rating = seat && seat->rating ? rating_text(*seat->rating) : "";
    }
    view_.rated = g.rated();
    if (g.my_side()) view_.me = g.my_side();
    if (view_.me && !view_.players[idx(*view_.me)].seated) view_.me.reset();
    view_.spectators = std::clamp(g.spectators(), 0, 1000000);
    view_.draw_offer = g.draw_offer();
    view_.takeback_offer = g.takeback_offer();
    view_.stalling = g.stalling();
    const int size = g.variant().size;
    view_.history.clear();
    for (const auto& t : g.turns()) view_.history.push_back(turn_to_notation(t.turn, size));
    view_.finished = g.finished();
    if (const auto& r = g.result()) {
        view_.result_winner = r->winner == proto::Winner::Silver   ? "silver"
                              : r->winner == proto::Winner::Bronze ? "bronze"
                              : r->winner == proto::Winner::Draw   ? "draw"
                                                                   : "";
        view_.result_reason = r->reason ? std::string(proto::reason_name(*r->reason)) : "";
        view_.result_score[0] = r->score[0];
        view_.result_score[1] = r->score[1];
    }
    const auto& c = g.clocks();
    view_.clock.timed = c.has_value() || g.time_control().has_value();
    view_.clock.correspondence = g.time_control() && g.time_control()->correspondence();
    for (Side s : {Side::Silver, Side::Bronze}) view_.clock.berserk[idx(s)] = g.berserk(s);
    if (c) {
        view_.clock.ms[0] = c->silver_ms;
        view_.clock.ms[1] = c->bronze_ms;
        view_.clock.running = view_.finished ? std::nullopt : c->running;
        view_.clock.received = SteadyClock::now();
        // A reading from the past (a replayed event) has been running since `at`, if the two
        // clocks roughly agree; a reading "from the future" means they don't: it counts from now.
        const std::int64_t lag = epoch_ms() - c->at;
        if (lag > 0 && lag < 600000) view_.clock.received -= std::chrono::milliseconds(lag);
    } else {
        view_.clock.running.reset();
    }
}

void Session::on(const proto::SnapshotMsg& m) {
    if (view_.code.empty() || m.game != view_.code) return;  // a game no longer on screen
    mirror_.emplace(player_id_);
    mirror_->apply(m);
    view_.last_cells.clear();
    view_.invitee = m.invitee ? clean_text(m.invitee->name, 40) : "";
    if (opts_.start.kind == Start::Join && start_state_ == StartState::Sent)
        start_state_ = StartState::Done;  // the seat is ours
    refresh_view();
    print_game();
}

// The answer to the challenge of the start: true when the event needs nothing more (the program
// ends).
bool Session::on_challenge_answer(const proto::Event& e) {
    if (start_state_ != StartState::Waiting && start_state_ != StartState::Cancelling) return false;
    if (auto* j = std::get_if<proto::JoinEv>(&e.body)) {
        if (start_state_ == StartState::Cancelling)
            note("(too late to cancel: the game goes on; trunkfield play resumes it)");
        start_state_ = StartState::Done;
        exit_code_ = 0;
        say(paint(opts_.style, "1", clean_text(j->player.name, 40) + " accepted your challenge."));
        if (e.game != view_.code) note("(watch " + challenge_code_ + "  to play it)");
        return false;
    }
    auto* c = std::get_if<proto::CancelEv>(&e.body);
    if (!c) return false;
    if (c->declined)
        say(paint(opts_.style, "1",
                  challenged_name() + " declined: " + decline_reason_words(*c->declined)));
    else if (start_state_ == StartState::Cancelling)
        say("Challenge " + challenge_code_ + " cancelled.");
    else
        say("The challenge " + challenge_code_ + " was cancelled.");
    end_start(1);
    return true;
}

void Session::on(const proto::Event& e) {
    if (e.game == challenge_code_ && on_challenge_answer(e)) return;
    if (e.game != view_.code) {  // a challenge declined (by this player, or the other one)
        if (auto* c = std::get_if<proto::CancelEv>(&e.body); c && c->declined)
            say("The challenge " + clean_text(e.game, 16) +
                " was declined: " + decline_reason_words(*c->declined) + ".");
        return;
    }
    if (view_.code.empty() || !mirror_) return;
    switch (mirror_->apply(e)) {
        case client::GameMirror::Update::Ignored:
            return;
        case client::GameMirror::Update::Gap:
            return resync(false);  // missed some: ask for them
        case client::GameMirror::Update::Diverged:
            note("(the local board disagrees with the server; resyncing)");
            return resync(true);
        case client::GameMirror::Update::Snapshot:
        case client::GameMirror::Update::Event:
            break;
    }
    refresh_view();
    std::visit([this](const auto& body) { tell(body); }, e.body);
}

// What each event says on screen.
void Session::tell(const proto::JoinEv& e) {
    say(clean_text(e.player.name, 40) + " joined as " + side_label(e.side) + ".");
    print_game();
}
void Session::tell(const proto::SetupEv&) {
    print_game();
}
void Session::tell(const proto::TurnEv& e) {
    view_.last_cells.clear();
    if (e.turn.elephant) {
        view_.last_cells.push_back(e.turn.elephant->from);
        for (Cell c : e.turn.elephant->path) view_.last_cells.push_back(c);
    }
    const auto& turns = mirror_->turns();
    if (!turns.empty() && !turns.back().captures.empty()) {
        std::string caps;
        for (const auto& c : turns.back().captures)
            caps += (caps.empty() ? "" : ", ") + side_label(c.side) + " on " +
                    cell_name(c.cell, mirror_->variant().size);
        say(paint(opts_.style, "1", side_label(e.side) + " captures " + caps + "."));
    }
    print_game();
}
void Session::tell(const proto::GameOverEv&) {
    print_game();
}
void Session::tell(const proto::ChatEv& e) {
    const char* sgr = "1";
    for (Side s : {Side::Silver, Side::Bronze})
        if (view_.players[idx(s)].seated && view_.players[idx(s)].id == e.from.id)
            sgr = s == Side::Silver ? "1;96" : "1;33";
    const bool spectators = e.room == proto::ChatRoom::Spectators;
    say((spectators ? paint(opts_.style, "2", "[spectators] ") : std::string()) +
        paint(opts_.style, sgr, "<" + clean_text(e.from.name, 40) + ">") + " " +
        clean_text(e.text, 600));
}
void Session::tell(const proto::ResignEv& e) {
    say(paint(opts_.style, "1", side_label(e.side) + " resigned."));
}
void Session::tell(const proto::CancelEv& e) {
    if (e.declined)
        return say((view_.invitee.empty()
                        ? "The challenge " + view_.code + " was declined"
                        : view_.invitee + " declined the challenge " + view_.code) +
                   ": " + decline_reason_words(*e.declined) + ".");
    say("Game " + view_.code + " was cancelled by its creator.");
}
void Session::tell(const proto::DrawOfferEv& e) {
    if (view_.me && *view_.me != e.side)
        return say(paint(opts_.style, "1", side_label(e.side) + " offers a draw:") +
                   " type  draw  to accept or  draw decline  to refuse.");
    say(side_label(e.side) + " offers a draw.");
}
void Session::tell(const proto::DrawDeclineEv& e) {
    say(side_label(e.side) + " declined the draw.");
}
void Session::tell(const proto::DrawAcceptEv& e) {
    say(side_label(e.side) + " accepted the draw.");
}
void Session::tell(const proto::TakebackOfferEv& e) {
    if (view_.me && *view_.me != e.side)
        return say(
            paint(opts_.style, "1", side_label(e.side) + " asks to take back their last turn:") +
            " type  takeback  to accept or  takeback decline  to refuse.");
    say(side_label(e.side) + " asks to take back their last turn.");
}
void Session::tell(const proto::TakebackDeclineEv& e) {
    say(side_label(e.side) + " declined the takeback.");
}
void Session::tell(const proto::TakebackEv& e) {
    say(paint(opts_.style, "1",
              std::to_string(e.turns) + (e.turns == 1 ? " turn" : " turns") +
                  " taken back: " + side_label(e.side) + " to move again."));
    print_game();
}
void Session::tell(const proto::TimeGivenEv& e) {
    say(side_label(e.side) + " gave " + side_label(~e.side) + " " + std::to_string(e.ms / 1000) +
        " seconds.");
}
void Session::tell(const proto::BerserkEv& e) {
    say(paint(opts_.style, "1", side_label(e.side) + " went berserk:") +
        " half their time gone, no increment; a win is worth a point more.");
}
void Session::tell(const proto::VacationEv& e) {
    say(side_label(e.side) +
        (e.on ? " is on vacation: their time stands on their move." : " is back from vacation."));
}
void Session::tell(const proto::PreferencesEv& e) {
    say(side_label(e.side) + (e.prefs.takeback ? " accepts" : " refuses") + " takebacks and" +
        (e.prefs.more_time ? " accepts" : " refuses") + " more time in this game.");
}
void Session::tell(const proto::StallingEv& e) {
    if (view_.me && *view_.me != e.side)
        return say(paint(opts_.style, "1", side_label(e.side) + " is sitting on a lost position:") +
                   " type  claim  for the win or  claim draw  for a draw.");
    say(side_label(e.side) + " is stalling in a lost position: the opponent may claim the game.");
}
void Session::tell(const proto::StallClaimEv& e) {
    say(paint(opts_.style, "1",
              side_label(e.side) + (e.draw ? " claimed a draw" : " claimed the win") +
                  " from a stalling opponent."));
}
void Session::tell(const proto::TimeoutEv& e) {
    say(paint(opts_.style, "1", side_label(e.side) + " ran out of time."));
}
void Session::tell(const proto::PlayerLeftEv& e) {
    std::string when;
    std::int64_t s = (e.claim_at - epoch_ms() + 999) / 1000;
    if (s > 0 && s < 100000) when = " in " + std::to_string(s) + " s";
    std::string text = side_label(e.side) + " lost the connection.";
    if (view_.me && *view_.me != e.side && !view_.finished)
        text += " If they do not come back you can  claim  the win" +
                (when.empty() ? std::string(" after the grace period") : when) + ".";
    say(text);
}
void Session::tell(const proto::PlayerBackEv& e) {
    say(side_label(e.side) + " is back.");
}
void Session::tell(const proto::AbandonEv& e) {
    say(side_label(e.side) + " lost by abandonment" + (e.claimed ? " (claimed)." : " (awarded)."));
}
void Session::tell(const proto::AbortEv& e) {
    view_.abort_reason = std::string(proto::abort_reason_name(e.reason));
    say("The game was aborted (" + view_.abort_reason + ").");
}
void Session::tell(const proto::SpectatorsEv&) {}
void Session::tell(const proto::RematchOfferEv& e) {
    if (view_.me && *view_.me != e.side)
        return say(paint(opts_.style, "1", side_label(e.side) + " offers a rematch:") +
                   " type  rematch  to accept or  rematch decline  to refuse.");
    say(side_label(e.side) + " offers a rematch.");
}
void Session::tell(const proto::RematchDeclineEv& e) {
    say(side_label(e.side) + " declined the rematch.");
}
void Session::tell(const proto::RematchEv& e) {
    if (!view_.me) say("The players started a rematch:  watch " + clean_text(e.code, 16));
}
void Session::tell(const proto::RatingsEv& e) {
    std::string text = "Rating (" + e.category + "):";
    for (Side side : {Side::Silver, Side::Bronze}) {
        const auto& c = e.change[side == Side::Silver ? 0 : 1];
        if (!c) continue;
        int delta = c->after.rating - c->before;
        const auto& who = view_.players[idx(side)];
        text += " " + (who.name.empty() ? side_label(side) : who.name) + " " +
                std::to_string(c->after.rating) + (c->after.provisional ? "?" : "") + " (" +
                (delta >= 0 ? "+" : "") + std::to_string(delta) + ")";
    }
    say(text);
}
void Session::tell(const proto::UnknownEv&) {}  // kinds added to the protocol later
void Session::tell(const proto::HiddenEv&) {}   // a chat line the server does not show us

void Session::on(const proto::Lobby& m) {
    if (!want_lobby_) return;
    want_lobby_ = false;
    if (m.games.empty()) return say("No open games.  create  makes one.");
    std::string out = "Open games (join CODE):\n";
    std::size_t tc_width = 10;  // "3 days per move" is wider than "5+3"
    for (const auto& g : m.games) tc_width = std::max(tc_width, tc_text(g.time_control).size() + 1);
    for (const auto& g : m.games)
        out += "  " + pad(clean_text(g.code, 16), 8) + pad(variant_text(g.variant), 16) +
               pad(tc_text(g.time_control), tc_width) + clean_text(g.creator.name, 40) +
               " (plays " + side_label(g.creator_side) + ")\n";
    say(out);
}

// A notification pushed live: said in a line, unless it is about the game on screen (its events
// say it already).
void Session::on(const proto::Notification& m) {
    const auto game = m.item.is_object() ? m.item.find("game") : m.item.end();
    if (!view_.code.empty() && m.item.is_object() && game != m.item.end() && game->is_string() &&
        game->get<std::string>() == view_.code)
        return;
    say(paint(opts_.style, "1", notification_text(m.item, NoticeFor::Play)));
}

void Session::on(const proto::Live& m) {
    if (!want_live_) return;
    want_live_ = false;
    if (m.games.empty()) return say("No games are being played.");
    std::string out = "Live games (watch CODE):\n";
    for (const auto& g : m.games) {
        auto name = [&](Side s) {
            return g.players[idx(s)] ? clean_text(g.players[idx(s)]->name, 40) : std::string();
        };
        out += "  " + pad(clean_text(g.code, 16), 8) + pad(variant_text(g.variant), 16) +
               name(Side::Silver) + " vs " + name(Side::Bronze) + "  turn " +
               std::to_string(g.turns) + "  score " + std::to_string(g.score[0]) + "-" +
               std::to_string(g.score[1]) +
               (g.status == proto::GameStatus::Suspended ? "  (paused)" : "") + "\n";
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
    if (secret_.stage == Secret::Login || secret_.stage == Secret::Current) return "password: ";
    if (secret_.stage == Secret::Register || secret_.stage == Secret::New)
        return "new password (8 or more characters): ";
    if (secret_.stage == Secret::RegisterAgain) return "the same password again: ";
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
            p += " S " + view_.clock.text(Side::Silver, now) + " b " +
                 view_.clock.text(Side::Bronze, now);
        if (view_.me) p += std::string(" you:") + (*view_.me == Side::Silver ? "S" : "b");
    } else {
        p += " ...";
    }
    return p + "]> ";
}

}  // namespace tf::play
