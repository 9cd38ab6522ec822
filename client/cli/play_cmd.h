#pragma once

#include <memory>
#include <string>

#include "cli_args.h"
#include "play_session.h"

namespace tf::cli {

// Adds `trunkfield play [--server HOST:PORT] [--name NAME] [--token-file PATH] [--no-color]
// ...`, the interactive terminal client, to `app`; when it is chosen, `run` is set to run it.
void add_play_command(CLI::App& app, Run& run);

// What the interactive client runs with. `trunkfield challenge` and `accept` (challenge_cmd.cpp)
// run it too, with a start of their own (Session::Start) and the token of --token.
struct PlayArgs {
    std::string server = "127.0.0.1:8081", name, token_path;
    std::string token;  // the identity to use instead of the token file's ("": the file's)
    int color = -1, unicode = -1;  // 1 on, 0 off, -1: decided from the environment
    std::string command = "play";  // the subcommand, as the first line printed names it
    play::Session::Start start;
};
// The terminal client, once its command line is parsed; the exit status.
int run_play(const PlayArgs& args);

// --server HOST:PORT, the server's TCP port (checked with play::parse_server), with `what` as
// its description.
// `http`: the HTTP port's address (play::parse_http_server), for the commands of the HTTP API.
CLI::Option* add_server_option(CLI::App* cmd, std::string& server, const std::string& what,
                               bool http = false);
// --token TOKEN, also from TRUNKFIELD_TOKEN: the identity to use instead of the saved one.
CLI::Option* add_token_option(CLI::App* cmd, std::string& token, const std::string& what);
// Checks an account's name as the server spells usernames (proto::is_username): for the
// USERNAME of `challenge`, the NAME of `follow`, `block`, `report` and the like.
CLI::Validator username_check();
// Checks a game code as typed (any letter case) and rewrites it as the server's (add it with
// ->transform()).
CLI::Validator game_code_check();
// --no-color, --color, --ascii, --unicode: how the board is drawn (without --color when the
// command has a --color of its own: `challenge`'s seat).
void add_style_flags(CLI::App* cmd, const std::shared_ptr<PlayArgs>& args, bool color = true);

// Where `trunkfield play` keeps its tokens ("SERVER TOKEN" lines): $XDG_CONFIG_HOME or
// ~/.config, trunkfield/token; "" when neither is set.
std::string default_token_path();
// The token to use on the TCP server `server` (HOST:PORT as --server takes it): `token` when it
// is not empty, else the default token file's line for that server (or its bare token); "" when
// there is none.
std::string token_for_server(const std::string& token, const std::string& server);
// The token the default token file holds for a server on `host`, whatever its port (the HTTP
// API's port is not the TCP server's the file names): the one line for that host, else the bare
// token; "" when there is none or several.
std::string saved_token_for_host(const std::string& host);

}  // namespace tf::cli
