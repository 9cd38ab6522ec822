// trunkfield: the command-line client. `rules` and `analyse` work on game records offline; `play`
// and `bot` play on a server, `bridge` connects an engine (docs/ENGINE.md) to one, `challenge`,
// `accept`, `decline` and `notifications` deal with challenges there, `playing` lists one's games
// going on (correspondence games), `vacation` shows, starts and ends one's vacation from them (its
// clocks stand on its move), `follow`, `unfollow`, `block`, `unblock`, `mute`, `unmute` and
// `following` with the accounts one follows, blocks and mutes, `report` reports an account to the
// moderators, `tournaments`, `tournament`, `join-tournament` and `withdraw-tournament` list,
// show, enter and leave tournaments. One CLI11 parser with a subcommand for each (each *_cmd.cpp
// adds its own).
#include "analyse_cmd.h"
#include "bot_cmd.h"
#include "challenge_cmd.h"
#include "cli_args.h"
#include "engine_cmd.h"
#include "notifications_cmd.h"
#include "play_cmd.h"
#include "puzzle_cmd.h"
#include "puzzles_cmd.h"
#include "relations_cmd.h"
#include "report_cmd.h"
#include "rules_cmd.h"
#include "tournament_cmd.h"

int main(int argc, char** argv) {
    CLI::App app{"The Trunkfield command-line client.", "trunkfield"};
    app.require_subcommand(1);
    tf::cli::Run run;
    tf::cli::add_rules_command(app, run);
    tf::cli::add_analyse_command(app, run);
    tf::cli::add_puzzles_command(app, run);
    tf::cli::add_puzzle_command(app, run);
    tf::cli::add_play_command(app, run);
    tf::cli::add_bot_command(app, run);
    tf::cli::add_bridge_command(app, run);
    tf::cli::add_engine_command(app, run);
    tf::cli::add_engine_check_command(app, run);
    tf::cli::add_challenge_commands(app, run);
    tf::cli::add_notifications_command(app, run);
    tf::cli::add_playing_command(app, run);
    tf::cli::add_vacation_command(app, run);
    tf::cli::add_relations_commands(app, run);
    tf::cli::add_report_command(app, run);
    tf::cli::add_tournament_commands(app, run);
    if (auto code = tf::cli::parse_args(app, argc, argv)) return *code;
    return run();
}
