// The logic of `trunkfield play`: what the server says (welcome, snapshots, events, lobby
// lists, errors) and what the player types (lobby commands, setups, turns in notation, chat,
// resign, draw). It talks to the world only through Io, so tests can drive it without sockets
// or a terminal. Nothing a server or a player sends makes it throw. play_session.cpp holds the
// server side, play_commands.cpp the commands.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/lib/game_mirror.h"
#include "common/playout.h"
#include "play_view.h"
#include "proto/messages.h"

namespace tf::play {

class Session {
  public:
    struct Io {
        virtual ~Io() = default;
        // Sends one protocol message; false when not connected.
        virtual bool send(const nlohmann::json& msg) = 0;
        virtual void print(const std::string& text) = 0;
        virtual void save_token(const std::string& token) = 0;
        virtual void quit() = 0;
    };
    // A first step of its own, taken once welcomed instead of resuming the player's games:
    // `trunkfield challenge` (a create_game with `to`, then waiting for the answer) and
    // `trunkfield accept` (taking the seat of a challenge) start the session with one.
    struct Start {
        enum Kind { None, Join, Challenge } kind = None;
        std::string code;             // Join: the game whose free seat to take
        proto::CreateGame challenge;  // Challenge: the request, with `to`
    };
    struct Options {
        std::string name;
        std::string token;  // saved identity, may be empty
        Style style;
        unsigned seed = 0;  // for `setup auto`
        Start start;
    };

    Session(Io& io, Options opts);

    // The connection is up: say hello.
    void on_connected();
    void on_disconnected(const std::string& why);
    // One line from the server.
    void on_message(std::string_view line);
    // One line typed by the player.
    void on_command(std::string_view line);

    bool welcomed() const { return welcomed_; }
    // The exit status the start's outcome gives the program: 1 when the challenge was declined,
    // cancelled or refused, or the seat to accept could not be taken (or the token is not an
    // identity this server knows); 0 otherwise.
    int exit_code() const { return exit_code_; }
    // The start (Options::start) is still to be answered: the seat to be taken, or the challenge
    // to be made or answered.
    bool start_pending() const {
        return opts_.start.kind != Start::None &&
               (start_state_ == StartState::Idle || start_state_ == StartState::Sent ||
                start_state_ == StartState::Waiting);
    }
    // The challenge of the start is to be made, or made and not answered yet.
    bool challenge_waiting() const;
    // Leaving while the challenge waits: asks the server to cancel it. True when the answer is
    // to be waited for (challenge_settling() until it came).
    bool cancel_challenge();
    bool challenge_settling() const;
    // A password is being asked for: the terminal hides what is typed.
    bool secret_input() const { return secret_.stage != Secret::None; }
    bool clock_running() const;
    // The prompt: game code, whose turn, clocks.
    std::string prompt(SteadyClock::time_point now, bool online) const;
    const GameView& view() const { return view_; }
    void print_game();

    static std::string help_text(std::string_view topic);

  private:
    using Json = nlohmann::json;
    using Handler = void (Session::*)(const std::vector<std::string>& words, std::string_view rest);

    // server messages (play_session.cpp), each parsed by proto::parse_server()
    void on(const proto::Welcome& m);
    // session_account: register, login, logout, password (passwords asked on the next lines).
    void cmd_register(const std::vector<std::string>& w, std::string_view rest);
    void cmd_login(const std::vector<std::string>& w, std::string_view rest);
    void cmd_logout(const std::vector<std::string>& w, std::string_view rest);
    void cmd_password(const std::vector<std::string>& w, std::string_view rest);
    // A password being typed: the line is not a command, and the terminal shows stars.
    bool on_secret(std::string_view line);
    void on(const proto::GameCreated& m);
    void on(const proto::SnapshotMsg& m);
    void on(const proto::Event& e);
    void on(const proto::Ack& m);
    void on(const proto::ErrorMsg& m);
    void on(const proto::Lobby& m);
    void on(const proto::Pong&) {}
    void on(const proto::Shutdown& m);
    void on(const proto::QuickMatchWaiting& m);
    void on(const proto::QuickMatchCancelled& m);
    void on(const proto::Matched& m);
    void on(const proto::Live& m);
    void on(const proto::Notification& m);
    // what each event of the game on screen says
    void tell(const proto::JoinEv& e);
    void tell(const proto::SetupEv& e);
    void tell(const proto::TurnEv& e);
    void tell(const proto::ResignEv& e);
    void tell(const proto::DrawOfferEv& e);
    void tell(const proto::DrawDeclineEv& e);
    void tell(const proto::DrawAcceptEv& e);
    void tell(const proto::TimeoutEv& e);
    void tell(const proto::StallingEv& e);
    void tell(const proto::StallClaimEv& e);
    void tell(const proto::TakebackOfferEv& e);
    void tell(const proto::TakebackDeclineEv& e);
    void tell(const proto::TakebackEv& e);
    void tell(const proto::TimeGivenEv& e);
    void tell(const proto::VacationEv& e);
    void tell(const proto::BerserkEv& e);
    void tell(const proto::PreferencesEv& e);
    void tell(const proto::PlayerBackEv& e);
    void tell(const proto::PlayerLeftEv& e);
    void tell(const proto::AbandonEv& e);
    void tell(const proto::AbortEv& e);
    void tell(const proto::GameOverEv& e);
    void tell(const proto::ChatEv& e);
    void tell(const proto::CancelEv& e);
    void tell(const proto::SpectatorsEv& e);
    void tell(const proto::RematchOfferEv& e);
    void tell(const proto::RematchDeclineEv& e);
    void tell(const proto::RematchEv& e);
    void tell(const proto::RatingsEv& e);
    void tell(const proto::UnknownEv& e);
    void tell(const proto::HiddenEv& e);
    void refresh_view();
    void resync(bool full);

    // commands
    void cmd_help(const std::vector<std::string>& w, std::string_view rest);
    void cmd_quit(const std::vector<std::string>& w, std::string_view rest);
    void cmd_create(const std::vector<std::string>& w, std::string_view rest);
    void cmd_join(const std::vector<std::string>& w, std::string_view rest);
    void cmd_quick(const std::vector<std::string>& w, std::string_view rest);
    void cmd_list(const std::vector<std::string>& w, std::string_view rest);
    void cmd_live(const std::vector<std::string>& w, std::string_view rest);
    void cmd_watch(const std::vector<std::string>& w, std::string_view rest);
    void cmd_leave(const std::vector<std::string>& w, std::string_view rest);
    void cmd_cancel(const std::vector<std::string>& w, std::string_view rest);
    void cmd_decline(const std::vector<std::string>& w, std::string_view rest);
    void cmd_setup(const std::vector<std::string>& w, std::string_view rest);
    void cmd_moves(const std::vector<std::string>& w, std::string_view rest);
    void cmd_board(const std::vector<std::string>& w, std::string_view rest);
    void cmd_history(const std::vector<std::string>& w, std::string_view rest);
    void cmd_chat(const std::vector<std::string>& w, std::string_view rest);
    void cmd_resign(const std::vector<std::string>& w, std::string_view rest);
    void cmd_draw(const std::vector<std::string>& w, std::string_view rest);
    void cmd_takeback(const std::vector<std::string>& w, std::string_view rest);
    void cmd_moretime(const std::vector<std::string>& w, std::string_view rest);
    void cmd_berserk(const std::vector<std::string>& w, std::string_view rest);
    void cmd_claim(const std::vector<std::string>& w, std::string_view rest);
    void cmd_rematch(const std::vector<std::string>& w, std::string_view rest);
    void cmd_turn(const std::vector<std::string>& w, std::string_view rest);
    void try_turn(std::string_view text);
    static const std::map<std::string, Handler>& commands();

    bool send(const Json& j);
    void say(const std::string& text) { io_.print(text); }
    void note(const std::string& text);  // a dim informational line
    void fail(const std::string& text);  // an error line
    bool need_game(bool seated);
    std::string next_ref(const std::string& what);
    std::string hint() const;
    void start_view(const std::string& code);
    // the start (Options::start)
    void begin_start(const std::vector<std::string>& seated);
    void end_start(int exit_code);  // it failed or ended the program: quit with this status
    bool on_challenge_answer(const proto::Event& e);
    std::string challenged_name() const;

    Io& io_;
    Options opts_;
    Rng rng_;
    bool welcomed_ = false;
    bool account_ = false;
    struct Secret {
        enum Stage { None, Login, Register, RegisterAgain, Current, New } stage = None;
        std::string username, first;
    } secret_;
    bool hello_with_token_ = false;
    std::string player_id_, name_;
    GameView view_;
    std::optional<client::GameMirror> mirror_;    // the game on screen
    std::map<std::string, std::string> pending_;  // ref -> what was sent
    int ref_counter_ = 0;
    bool want_lobby_ = false, want_live_ = false;
    bool quick_waiting_ = false;
    std::string confirm_resign_;  // the game a `resign` waits for a "yes" for
    // Idle: not begun; Sent: asked (create_game or join_game); Waiting: the challenge is made
    // and not answered; Cancelling: its cancel_game is sent; Done.
    enum class StartState { Idle, Sent, Waiting, Cancelling, Done } start_state_ = StartState::Idle;
    int exit_code_ = 0;
    std::string challenge_code_;  // the game of the start's challenge, once made
};

}  // namespace tf::play
