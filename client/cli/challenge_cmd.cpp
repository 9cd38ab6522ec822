// `trunkfield challenge USERNAME`, `accept CODE` and `decline CODE` (proto/PROTOCOL.md
// "Challenges"), on the server's TCP port with the player's token (an account's). `challenge`
// and `accept` are the game screen of `trunkfield play` (run_play) with a first step of their own
// (play::Session::Start): the challenge made and its answer awaited, or the challenge's seat
// taken. `decline` sends one message and says how it ended.
#include "challenge_cmd.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "client/lib/connection.h"
#include "play_cmd.h"
#include "play_input.h"
#include "play_notices.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

using Clock = std::chrono::steady_clock;

int fail(const std::string& command, const std::string& msg) {
    std::cerr << "trunkfield " << command << ": " << msg << "\n";
    return 1;
}

// "HOST:PORT" as the token file names the server.
std::string server_key(const std::string& server) {
    std::string host;
    unsigned short port = 8081;
    play::parse_server(server, host, port);  // checked by the parser
    return host + ":" + std::to_string(port);
}

std::string no_token(const std::string& server) {
    return "no token for " + server_key(server) + ": sign in first (trunkfield play --server " +
           server_key(server) + ", then  login NAME), or give --token";
}

// The options `challenge` and `accept` share with `play`: the server, the token, the board
// (`color`: with play's --color, which `challenge` has for the seat).
std::shared_ptr<PlayArgs> play_options(CLI::App* cmd, bool color) {
    auto args = std::make_shared<PlayArgs>();
    args->token_path = default_token_path();
    add_server_option(cmd, args->server, "the server's TCP port");
    add_token_option(cmd, args->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that server)");
    add_style_flags(cmd, args, color);
    return args;
}

// Runs the game screen with `start`, once there is a token to start it with.
int run_started(PlayArgs args, const std::string& command, play::Session::Start start) {
    args.token = token_for_server(args.token, args.server);
    if (args.token.empty()) return fail(command, no_token(args.server));
    args.command = command;
    args.start = std::move(start);
    return run_play(args);
}

// ---- challenge ---------------------------------------------------------------------------------

struct ChallengeArgs {
    std::string to;
    int size = 9;
    std::string clock = "none";
    std::string color = "random";
    bool rated = false;
};

int run_challenge(const PlayArgs& play_args, const ChallengeArgs& a) {
    proto::CreateGame m;
    m.variant = a.size == 7 ? Variant{7, 3, 2, 30} : Variant{};
    std::string err;
    play::parse_time_control(a.clock, m.time_control, err);  // checked by the parser
    m.color = a.color == "silver"   ? proto::ColorChoice::Silver
              : a.color == "bronze" ? proto::ColorChoice::Bronze
                                    : proto::ColorChoice::Random;
    m.is_public = false;  // a challenge is private whatever this says
    m.rated = a.rated;
    m.to = a.to;
    play::Session::Start start;
    start.kind = play::Session::Start::Challenge;
    start.challenge = m;
    return run_started(play_args, "challenge", start);
}

void add_challenge(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "challenge", "challenge an account to a game; play it in the terminal once accepted");
    auto play_args = play_options(cmd, false);
    auto a = std::make_shared<ChallengeArgs>();
    cmd->add_option("USERNAME", a->to, "the account challenged")
        ->required()
        ->check(username_check());
    cmd->add_option("--size", a->size, "the board: 9 (standard) or 7 (small)")
        ->capture_default_str()
        ->check(CLI::IsMember({7, 9}));
    cmd->add_option("--clock", a->clock,
                    "the time control: minutes + increment seconds (5+3), days per move for a "
                    "correspondence game (3d: 1, 2, 3, 5, 7, 10 or 14), or none")
        ->type_name("MIN+INC|DAYSd|none")
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                std::optional<proto::TimeControl> tc;
                std::string err;
                return play::parse_time_control(s, tc, err) ? "" : "'" + s + "': " + err;
            },
            ""));
    cmd->add_option("--color,--colour,--side", a->color, "your seat")
        ->capture_default_str()
        ->check(CLI::IsMember({"silver", "bronze", "random"}));
    cmd->add_flag("--rated", a->rated, "a rated game (both players are accounts)");
    cmd->footer(
        "The challenged player is notified (trunkfield notifications) and answers with\n"
        "trunkfield accept CODE or trunkfield decline CODE. Ctrl-C cancels the challenge.\n"
        "exit codes: 0 accepted (and played or left), 1 declined, cancelled or refused, 2 usage");
    cmd->callback(
        [&run, play_args, a] { run = [play_args, a] { return run_challenge(*play_args, *a); }; });
}

// ---- accept ------------------------------------------------------------------------------------

void add_accept(CLI::App& app, Run& run) {
    CLI::App* cmd =
        app.add_subcommand("accept", "accept a challenge made to you and play it in the terminal");
    auto play_args = play_options(cmd, true);
    auto code = std::make_shared<std::string>();
    cmd->add_option("CODE", *code, "the challenge's game code")
        ->required()
        ->transform(game_code_check());
    cmd->footer(
        "exit codes: 0 joined (and played or left), 1 the seat could not be taken, 2 usage");
    cmd->callback([&run, play_args, code] {
        run = [play_args, code] {
            play::Session::Start start;
            start.kind = play::Session::Start::Join;
            start.code = *code;
            return run_started(*play_args, "accept", start);
        };
    });
}

// ---- decline -----------------------------------------------------------------------------------

struct DeclineArgs {
    std::string server = "127.0.0.1:8081", token, code, reason = "generic";
};

int run_decline(const DeclineArgs& a) {
    const std::string token = token_for_server(a.token, a.server);
    if (token.empty()) return fail("decline", no_token(a.server));
    std::string host;
    unsigned short port = 8081;
    play::parse_server(a.server, host, port);
    try {
        auto conn = client::connect_tcp(host, port);
        proto::Hello hello;
        hello.version = proto::kProtocolVersion;
        hello.token = token;
        conn->send(proto::to_json(hello));
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(20);
        bool sent = false;
        for (;;) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) return fail("decline", "no answer from the server");
            auto text = conn->recv_text_for(std::min(left, std::chrono::milliseconds(1000)));
            if (!text) continue;
            auto parsed = proto::parse_server(*text);
            auto* msg = std::get_if<proto::ServerMsg>(&parsed);
            if (!msg) continue;
            if (std::holds_alternative<proto::Welcome>(*msg) && !sent) {
                conn->send(proto::to_json(proto::DeclineChallenge{a.code, a.reason}));
                sent = true;
            } else if (auto* e = std::get_if<proto::ErrorMsg>(msg)) {
                if (e->code == proto::Err::BadToken && !sent)
                    return fail("decline",
                                "this server does not know the token: sign in first (trunkfield "
                                "play, then  login NAME)");
                return fail("decline", play::clean_text(e->message, 400) + " (" +
                                           std::string(proto::err_name(e->code)) + ")");
            } else if (auto* ev = std::get_if<proto::Event>(msg); ev && ev->game == a.code) {
                if (auto* c = std::get_if<proto::CancelEv>(&ev->body)) {
                    std::cout << "Declined the challenge " << a.code << ": "
                              << play::decline_reason_words(c->declined.value_or(a.reason))
                              << ".\n";
                    return 0;
                }
            }
        }
    } catch (const std::exception& e) {
        return fail("decline", "cannot reach " + host + ":" + std::to_string(port) + ": " +
                                   play::clean_text(e.what(), 200));
    }
}

void add_decline(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand("decline", "decline a challenge made to you");
    auto a = std::make_shared<DeclineArgs>();
    cmd->add_option("CODE", a->code, "the challenge's game code")
        ->required()
        ->transform(game_code_check());
    cmd->add_option("--reason", a->reason, "why, as the challenger is told")
        ->capture_default_str()
        ->check(CLI::IsMember(std::vector<std::string>(std::begin(proto::kDeclineReasons),
                                                       std::end(proto::kDeclineReasons))));
    add_server_option(cmd, a->server, "the server's TCP port");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that server)");
    cmd->footer("exit codes: 0 declined, 1 refused (the error says why) or no server, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_decline(*a); }; });
}

}  // namespace

void add_challenge_commands(CLI::App& app, Run& run) {
    add_challenge(app, run);
    add_accept(app, run);
    add_decline(app, run);
}

}  // namespace tf::cli
