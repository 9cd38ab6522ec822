// The commands the player types into `trunkfield play` (Session's other half: play_session.cpp
// handles what the server says).
#include <algorithm>
#include <iterator>
#include <map>
#include <memory>

#include "common/notation.h"
#include "common/playout.h"
#include "play_input.h"
#include "play_session.h"

namespace tf::play {

// ---- commands ----------------------------------------------------------------------------

const std::map<std::string, Session::Handler>& Session::commands() {
    static const std::map<std::string, Handler> table = {
        {"help", &Session::cmd_help},         {"?", &Session::cmd_help},
        {"quit", &Session::cmd_quit},         {"exit", &Session::cmd_quit},
        {"create", &Session::cmd_create},     {"new", &Session::cmd_create},
        {"join", &Session::cmd_join},         {"quick", &Session::cmd_quick},
        {"list", &Session::cmd_list},         {"games", &Session::cmd_list},
        {"live", &Session::cmd_live},         {"watch", &Session::cmd_watch},
        {"leave", &Session::cmd_leave},       {"cancel", &Session::cmd_cancel},
        {"setup", &Session::cmd_setup},       {"moves", &Session::cmd_moves},
        {"board", &Session::cmd_board},       {"history", &Session::cmd_history},
        {"chat", &Session::cmd_chat},         {"say", &Session::cmd_chat},
        {"resign", &Session::cmd_resign},     {"draw", &Session::cmd_draw},
        {"claim", &Session::cmd_claim},       {"play", &Session::cmd_turn},
        {"rematch", &Session::cmd_rematch},   {"turn", &Session::cmd_turn},
        {"register", &Session::cmd_register}, {"login", &Session::cmd_login},
        {"logout", &Session::cmd_logout},     {"password", &Session::cmd_password},
        {"takeback", &Session::cmd_takeback}, {"moretime", &Session::cmd_moretime},
        {"berserk", &Session::cmd_berserk},   {"decline", &Session::cmd_decline},
    };
    return table;
}

void Session::on_command(std::string_view line) {
    if (on_secret(line)) return;
    try {
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
            line.remove_suffix(1);
        if (line.empty()) return;
        std::vector<std::string> words = split_words(line);
        std::string cmd = words[0];
        if (!confirm_resign_.empty()) {
            const std::string code = confirm_resign_;
            confirm_resign_.clear();
            if (cmd == "yes" || cmd == "y") {
                send(proto::to_json(proto::Resign{code}));
                return;
            }
            note("(not resigned)");
            if (cmd == "no" || cmd == "n") return;
        }
        std::string_view rest = line.substr(std::min(line.size(), words[0].size()));
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
            rest.remove_prefix(1);
        std::string lower = cmd;
        for (char& c : lower)
            if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        auto it = commands().find(lower);
        if (it != commands().end()) {
            words.erase(words.begin());
            (this->*(it->second))(words, rest);
            return;
        }
        // Anything else is read as a turn when it looks like one.
        const bool turnish = cmd == "pass" || cmd.find('-') != std::string::npos ||
                             cmd.find(':') != std::string::npos;
        if (turnish) return try_turn(line);
        fail("Unknown command '" + clean_text(cmd, 40) + "' (type help).");
    } catch (const std::exception& e) {
        fail(std::string("That did not work: ") + clean_text(e.what(), 200));
    }
}

std::string Session::help_text(std::string_view topic) {
    if (topic == "setup")
        return R"(Setup: silver places first, then bronze (who sees silver's setup).
  setup CELLS | RING RING   E field cells of your start zone for your elephants (silver: b1 to
                            the end of row 1; bronze: a2 to the top of column a), then 2 free
                            ring cells for your guardians. Ring cells: Sa..  Na..  W1..  E1..
                            and the corners SW NW NE SE. The | is optional.
                            e.g.  setup b1 c1 e1 g1 h1 | Sa W5     (bronze:  setup a2 a3 a4 a7 a9 | SE E8)
  setup auto                a random legal setup
No elephant may stand on a crossing (a cell whose column and row are both watched).)";
    if (topic == "turn" || topic == "notation")
        return R"(A turn:  ELEPHANT [*BURNT] [GUARDIAN ...]
  ELEPHANT  from-step[-step[-step]][:F]  the start cell, then the landing cell of each step
            (a jump lands two cells away); :F (N E S W) is the new facing, written exactly
            when the move ends on an empty cell.  c1-c2   b1-d1:N   a7-a6-a5:E
            exit: the last step is the ring cell beyond your goal edge: e9-Ne (silver), i5-E5 (bronze)
            pass  when no elephant can move
  *CELL     burn a trunk on an empty field cell: *e5
  GUARDIAN  ring cell, + (clockwise) or - (counterclockwise), cells: Sc+2  W5-1  (1 trunk per cell)
  e.g.  d1-d2 W5-1      a7-a6-a5:E *f1      pass *e5 Sc+2
  moves CELL  lists the legal moves of the elephant on CELL (:F = choose the facing).)";
    return R"(Lobby
  create [size=N elephants=E burnt=B quiet=Q] [time=MIN+INC|DAYSd] [side=silver|bronze|random]
         [private] [rated]   open a game (default 9x9, 5 elephants, 3 burnt, quiet 40, untimed,
                   random side); time=3d: a correspondence game, 3 days per move (1 2 3 5 7 10 14)
  join CODE        take the free seat of a game        watch CODE   watch a game
  decline CODE [REASON]   refuse a challenge made to you; REASON: generic later too_fast
                   too_slow time_control rated casual variant no_bot only_bot
  quick [size=.. elephants=.. burnt=.. quiet=.. time=MIN+INC|DAYSd] [rated]   quick match;
                   quick cancel
  list             open games                          live         games being played
  leave            close the game on screen (cancels your game if nobody joined yet)
Account (rated games: 9x9 or 7x7 boards, against people)
  register NAME    make this player an account (asks for a password)
  login NAME       sign in (asks for the password)       logout [everywhere]   sign out
  password         change the password (signs out your other sessions)
In a game
  setup CELLS | RING RING    your setup, or  setup auto          (help setup)
  TURN             a turn in notation: c1-c2   b1-d1:N   d1-d2 W5-1   pass   (help turn)
  moves [CELL]     legal moves of the elephant on CELL; without CELL, counts for every elephant
  board            draw the board again (also Ctrl-L)   history   all turns of the game
  chat TEXT        players: talk to everyone; spectators: talk to the spectators
  rematch          after the game: offer a rematch, or accept the one offered;  rematch decline
  draw             offer a draw, or accept the offer standing;  draw decline  refuses it
  takeback         ask to take back your last turn, or accept the request;  takeback decline
  moretime         give your opponent 15 more seconds
  berserk          arena games, before your first turn: half your time and no increment,
                   for a point more if you win
  resign           give up (asks to confirm)            claim   win when the opponent has gone
                   or is stalling;  claim draw  a draw from a stalling opponent
  quit             leave (your seat stays: you can come back with the same token))";
}

void Session::cmd_help(const std::vector<std::string>& w, std::string_view) {
    say(help_text(w.empty() ? "" : w[0]));
}

void Session::cmd_quit(const std::vector<std::string>&, std::string_view) {
    io_.quit();
}

void Session::cmd_create(const std::vector<std::string>& w, std::string_view) {
    std::string err;
    auto o = parse_game_options(w, true, err);
    if (!o) return fail("create: " + err);
    proto::CreateGame m;
    m.variant = o->variant;
    m.time_control = o->time_control;
    m.color = o->color;
    m.is_public = o->is_public;
    m.rated = o->rated;
    send(proto::to_json(m));
}

void Session::cmd_join(const std::vector<std::string>& w, std::string_view) {
    if (w.size() != 1 || !proto::is_game_code(w[0])) return fail("usage: join CODE");
    start_view(w[0]);
    send(proto::to_json(proto::JoinGame{w[0]}));
}

void Session::cmd_quick(const std::vector<std::string>& w, std::string_view) {
    if (w.size() == 1 && w[0] == "cancel") {
        send(proto::to_json(proto::QuickMatchCancel{}));
        return;
    }
    std::string err;
    auto o = parse_game_options(w, false, err);
    if (!o) return fail("quick: " + err);
    proto::QuickMatch m;
    m.variant = o->variant;
    m.time_control = o->time_control;
    m.rated = o->rated;
    send(proto::to_json(m));
}

void Session::cmd_list(const std::vector<std::string>&, std::string_view) {
    if (send(proto::to_json(proto::ListGames{}))) want_lobby_ = true;
}

void Session::cmd_live(const std::vector<std::string>&, std::string_view) {
    if (send(proto::to_json(proto::ListLive{}))) want_live_ = true;
}

void Session::cmd_watch(const std::vector<std::string>& w, std::string_view) {
    if (w.size() != 1 || !proto::is_game_code(w[0])) return fail("usage: watch CODE");
    start_view(w[0]);
    proto::Watch m;
    m.code = w[0];
    send(proto::to_json(m));
}

void Session::cmd_leave(const std::vector<std::string>&, std::string_view) {
    if (challenge_waiting()) return io_.quit();  // leaving cancels the challenge
    if (view_.code.empty()) return note("No game on screen.");
    const bool mine_open = view_.status == "open" && view_.me;
    if (mine_open) send(proto::to_json(proto::CancelGame{view_.code}));
    if (view_.me && view_.status == "playing" && !view_.finished)
        note("You keep your seat in " + view_.code + ": the game goes on (watch " + view_.code +
             " to return, resign to end it).");
    view_ = GameView{};
    say("Back in the lobby.");
}

void Session::cmd_cancel(const std::vector<std::string>&, std::string_view) {
    if (view_.code.empty() || view_.status != "open" || !view_.me)
        return fail("cancel: only your own game, before anyone joined it");
    send(proto::to_json(proto::CancelGame{view_.code}));
}

void Session::cmd_decline(const std::vector<std::string>& w, std::string_view) {
    const auto& reasons = proto::kDeclineReasons;
    if (w.empty() || w.size() > 2 || !proto::is_game_code(w[0]) ||
        (w.size() == 2 &&
         std::find(std::begin(reasons), std::end(reasons), w[1]) == std::end(reasons)))
        return fail(
            "usage: decline CODE [generic|later|too_fast|too_slow|time_control|rated|casual|"
            "variant|no_bot|only_bot]");
    proto::DeclineChallenge m{w[0]};
    if (w.size() == 2) m.reason = w[1];
    if (send(proto::to_json(m))) note("Declining the challenge " + w[0] + " ...");
}

bool Session::need_game(bool seated) {
    if (view_.code.empty() || !view_.game) {
        fail("No game on screen (create, join, quick or watch one).");
        return false;
    }
    if (seated && !view_.me) {
        fail("You are watching this game, not playing in it.");
        return false;
    }
    if (seated && (view_.finished || view_.status != "playing")) {
        fail(view_.status == "open" ? "Nobody has joined yet." : "The game is over.");
        return false;
    }
    return true;
}

void Session::cmd_setup(const std::vector<std::string>& w, std::string_view) {
    if (!need_game(true)) return;
    const Game& g = *view_.game;
    const Side me = *view_.me;
    const Phase want = me == Side::Silver ? Phase::SetupSilver : Phase::SetupBronze;
    if (g.phase() != want) {
        if (g.phase() == Phase::SetupSilver)
            return fail("Silver places first: wait for its setup.");
        return fail("Your setup is done; the setups are over or it is not your setup now.");
    }
    const int n = g.variant().size;
    Setup s;
    if (w.size() == 1 && w[0] == "auto") {
        s = random_setup(g, rng_);
        std::sort(s.elephants.begin(), s.elephants.end());
        say("setup " + setup_to_text(s, n));
    } else {
        std::string err;
        auto parsed = parse_setup_words(w, n, err);
        if (!parsed) return fail("setup: " + err + ".  (help setup)");
        s = *parsed;
    }
    Game copy = g;
    if (auto e = copy.apply_setup(me, s))
        return fail("Illegal setup (" + std::string(error_code_name(e->code)) + "): " + e->message);
    proto::SetupMsg m;
    m.game = view_.code;
    m.setup = s;
    m.version = view_.version;
    m.ref = next_ref("the setup " + setup_to_text(s, n));
    send(proto::to_json(m));
}

void Session::cmd_turn(const std::vector<std::string>&, std::string_view rest) {
    try_turn(rest);
}

void Session::try_turn(std::string_view text) {
    if (!need_game(true)) return;
    const Game& g = *view_.game;
    if (g.phase() != Phase::Play) {
        if (g.over()) return fail("The game is over.");
        return fail("The game is still in its setup phase: use  setup ...  (help setup).");
    }
    if (g.to_move() != *view_.me)
        return fail("It is " + side_label(g.to_move()) + "'s turn, not yours.");
    const int n = g.variant().size;
    auto t = turn_from_notation(text, n);
    if (!t) return fail("Cannot read that turn: " + t.error().message + "  (help turn)");
    Game copy = g;
    if (auto e = copy.apply_turn(*t))
        return fail("Illegal turn (" + std::string(error_code_name(e->code)) + "): " + e->message);
    proto::TurnMsg m;
    m.game = view_.code;
    m.turn = *t;
    m.version = view_.version;
    m.ref = next_ref("the turn " + turn_to_notation(*t, n));
    send(proto::to_json(m));
}

void Session::cmd_moves(const std::vector<std::string>& w, std::string_view) {
    if (!need_game(false)) return;
    const Game& g = *view_.game;
    if (g.phase() != Phase::Play) return fail("No moves: the game is not being played.");
    const int n = g.variant().size;
    auto list = std::make_unique<MoveList>();
    g.generate_paths(*list);
    const std::string who = side_label(g.to_move());
    auto text_of = [&](Move m) {
        const bool any = m.facing == kAnyFacing;
        if (any) m.facing = kKeepFacing;
        return turn_to_notation(Turn{g.to_elephant_move(m), std::nullopt, {}}, n) +
               (any ? ":F" : "");
    };
    if (w.empty()) {
        if (list->size == 0) return say(who + " has no legal elephant move: the turn is  pass.");
        std::map<Cell, std::pair<int, int>> per;  // cell -> (paths, moves)
        for (const Move& m : *list) {
            auto& e = per[cell_of(m.from)];
            e.first += 1;
            e.second += m.facing == kAnyFacing ? 4 : 1;
        }
        std::string out = who + " to move; legal moves per elephant (moves CELL lists them):\n ";
        int total = 0;
        for (auto& [c, e] : per) {
            out += " " + cell_name(c, n) + ": " + std::to_string(e.second);
            total += e.second;
        }
        for (const auto& e : g.elephants())
            if (e.side == g.to_move() && !per.count(e.cell))
                out += " " + cell_name(e.cell, n) + ": 0";
        out += "\n  " + std::to_string(total) + " moves in all.";
        return say(out);
    }
    auto c = parse_cell_name(w[0], n);
    if (!c || !g.variant().in_field(*c))
        return fail("moves: '" + clean_text(w[0], 20) + "' is not a field cell.");
    auto e = g.elephant_on(*c);
    if (!e) return fail("moves: no elephant on " + cell_name(*c, n) + ".");
    if (e->side != g.to_move())
        return fail("moves: the elephant on " + cell_name(*c, n) + " is " + side_label(e->side) +
                    "'s, and " + who + " is to move.");
    std::vector<std::string> found;
    int moves = 0;
    for (const Move& m : *list)
        if (cell_of(m.from) == *c) {
            found.push_back(text_of(m));
            moves += m.facing == kAnyFacing ? 4 : 1;
        }
    if (found.empty()) return say("The elephant on " + cell_name(*c, n) + " cannot move.");
    std::string out = "Moves of " + cell_name(*c, n) + " (" + std::to_string(moves) +
                      "; :F = choose a facing N E S W):\n";
    std::string row = " ";
    for (const std::string& f : found) {
        if (row.size() + f.size() + 2 > 78) {
            out += row + "\n";
            row = " ";
        }
        row += " " + f;
    }
    say(out + row);
}

void Session::cmd_board(const std::vector<std::string>&, std::string_view) {
    if (!view_.game) return note("No game on screen.");
    print_game();
}

void Session::cmd_history(const std::vector<std::string>&, std::string_view) {
    if (!need_game(false)) return;
    if (view_.history.empty()) return say("No turns played yet.");
    std::string out;
    for (std::size_t i = 0; i < view_.history.size(); ++i) {
        out += (i % 2 == 0 ? "  " + std::to_string(i / 2 + 1) + ". " : "    ") + view_.history[i];
        if (i % 2 == 1 || i + 1 == view_.history.size()) out += "\n";
    }
    say(out);
}

void Session::cmd_chat(const std::vector<std::string>&, std::string_view rest) {
    if (view_.code.empty()) return fail("Chat goes to the game on screen: there is none.");
    if (rest.empty()) return fail("usage: chat TEXT");
    if (rest.size() > proto::kMaxChatChars) return fail("Chat lines are limited to 500 bytes.");
    send(proto::to_json(proto::Chat{view_.code, std::string(rest)}));
}

void Session::cmd_resign(const std::vector<std::string>&, std::string_view) {
    if (!need_game(true)) return;
    confirm_resign_ = view_.code;
    say(paint(opts_.style, "1", "Resign game " + view_.code + "? Type  yes  to confirm."));
}

void Session::cmd_draw(const std::vector<std::string>& w, std::string_view) {
    if (!need_game(true)) return;
    const bool theirs = view_.draw_offer && *view_.draw_offer != *view_.me;
    if (!w.empty() && (w[0] == "decline" || w[0] == "no")) {
        if (!theirs) return fail("There is no draw offer to decline.");
        send(proto::to_json(proto::DrawDecline{view_.code}));
        return;
    }
    if (theirs) {
        send(proto::to_json(proto::DrawAccept{view_.code}));
        return;
    }
    if (view_.draw_offer == view_.me) return note("Your draw offer stands.");
    send(proto::to_json(proto::DrawOffer{view_.code}));
}

void Session::cmd_takeback(const std::vector<std::string>& w, std::string_view) {
    if (!need_game(true)) return;
    const bool theirs = view_.takeback_offer && *view_.takeback_offer != *view_.me;
    if (!w.empty() && (w[0] == "decline" || w[0] == "no")) {
        if (!theirs) return fail("There is no takeback request to decline.");
        send(proto::to_json(proto::TakebackDecline{view_.code}));
        return;
    }
    if (theirs) {
        send(proto::to_json(proto::TakebackAccept{view_.code}));
        return;
    }
    if (view_.takeback_offer == view_.me) return note("Your takeback request stands.");
    send(proto::to_json(proto::TakebackOffer{view_.code}));
}

void Session::cmd_moretime(const std::vector<std::string>&, std::string_view) {
    if (!need_game(true)) return;
    send(proto::to_json(proto::GiveTime{view_.code}));
}

void Session::cmd_berserk(const std::vector<std::string>&, std::string_view) {
    if (!need_game(true)) return;
    send(proto::to_json(proto::Berserk{view_.code}));
}

void Session::cmd_claim(const std::vector<std::string>& w, std::string_view) {
    if (!need_game(true)) return;
    if (!w.empty() && w[0] == "draw")
        return (void)send(proto::to_json(proto::ClaimDraw{view_.code}));
    send(proto::to_json(proto::ClaimWin{view_.code}));
}

void Session::cmd_rematch(const std::vector<std::string>& w, std::string_view) {
    if (view_.code.empty() || !view_.me) return fail("A rematch is for the players of a game.");
    if (!view_.finished) return fail("The game is still going on.");
    if (!w.empty() && w[0] == "decline")
        return (void)send(proto::to_json(proto::RematchDecline{view_.code}));
    send(proto::to_json(proto::Rematch{view_.code}));
}

}  // namespace tf::play
