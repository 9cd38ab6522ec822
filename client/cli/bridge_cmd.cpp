// `trunkfield bridge`: connects an engine of docs/ENGINE.md to a server as the account of a
// token, through the seat player of bridge_client.h (the code `trunkfield bot` plays with).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "bot_cmd.h"
#include "bridge_client.h"
#include "common/bot.h"
#include "play_input.h"

namespace tf::cli {

namespace {

constexpr const char* kFooter =
    R"(Plays as the account of TOKEN (or of $TRUNKFIELD_TOKEN): takes the challenges sent to it
that the rules below accept and declines the others with the reason (busy: `later`), and
plays the games of the tournaments the account entered (docs/TOURNAMENTS.md), or with
--seek plays quick matches, or with --challenge NAME challenges that account (a person or a bot)
to each game, taken back if not accepted within 60 s; one game at a time. Games the account holds when the bridge starts
are played first. It reconnects after a drop (a restart, a failover) and goes on with its game;
an engine that breaks is started again, and twice in a row resigns that game.
A bot account (proto/PROTOCOL.md "Bot accounts") plays no quick matches: --seek is for
accounts that are not bots.
exit codes: 0 the K games were played (--games), 1 a connection, protocol or engine failure
            (or a challenge declined or not taken), 2 a usage error)";

struct BridgeArgs {
    BridgeOptions o;
    std::string engine, sizes = "7,9", clock = "5+3";
    int level = 0;
    bool seek = false, no_untimed = false, rated_only = false, casual_only = false;
};

}  // namespace

void add_bridge_command(CLI::App& app, Run& run) {
    auto a = std::make_shared<BridgeArgs>();
    a->o.games = 0;  // until stopped
    CLI::App* cmd = app.add_subcommand(
        "bridge", "connect an engine (docs/ENGINE.md) to a server as an account");
    add_server_option(*cmd, a->o.nodes);
    cmd->add_option("--engine", a->engine, "the engine's command line (run with /bin/sh -c)")
        ->type_name("CMD")
        ->required();
    cmd->add_option("--token", a->o.token, "the account's token (default: $TRUNKFIELD_TOKEN)")
        ->type_name("TOKEN");
    cmd->add_option("--level", a->level, "sets the engine's `level` option, when it has one")
        ->type_name("N")
        ->transform(whole_number(1, 1000));
    cmd->add_option("--games", a->o.games, "stop after K games (default: run until stopped)")
        ->type_name("K")
        ->transform(whole_number(1, 1'000'000));
    auto* seek =
        cmd->add_flag("--seek", a->seek, "play quick matches instead of waiting for challenges");
    auto* challenge =
        cmd->add_option("--challenge", a->o.opponent,
                        "challenge this account to each game instead of waiting for challenges")
            ->type_name("NAME")
            ->excludes(seek);
    cmd->add_option("--clock", a->clock,
                    "--challenge: minutes + increment seconds (5+3), days per move (3d) or none")
        ->type_name("MIN+INC|DAYSd|none")
        ->capture_default_str()
        ->needs(challenge)
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                std::optional<proto::TimeControl> tc;
                std::string err;
                return play::parse_time_control(s, tc, err) ? "" : "'" + s + "': " + err;
            },
            ""));
    cmd->add_flag("--rated", a->o.rated, "--challenge: rated games")->needs(challenge);
    cmd->add_option("--size", a->o.size,
                    "--seek, --challenge: the standard board (9) or the small one (7)")
        ->capture_default_str()
        ->check(CLI::IsMember({7, 9}));
    cmd->add_option("--sizes", a->sizes, "challenges: the board sizes taken")
        ->type_name("LIST")
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                return s == "7" || s == "9" || s == "7,9" || s == "9,7" ? "" : "7, 9 or 7,9";
            },
            ""));
    cmd->add_flag("--no-untimed", a->no_untimed, "challenges: decline games without a clock");
    cmd->add_flag("--correspondence", a->o.accept.correspondence,
                  "challenges: take correspondence games (days per move)");
    cmd->add_option("--min-seconds", a->o.accept.min_seconds,
                    "challenges: decline clocks faster than this (initial + 40 x increment)")
        ->type_name("S")
        ->capture_default_str()
        ->transform(whole_number(0, 1'000'000));
    cmd->add_option("--max-seconds", a->o.accept.max_seconds,
                    "challenges: decline clocks slower than this")
        ->type_name("S")
        ->capture_default_str()
        ->transform(whole_number(0, 1'000'000));
    auto* r = cmd->add_flag("--rated-only", a->rated_only, "challenges: decline casual games");
    cmd->add_flag("--casual-only", a->casual_only, "challenges: decline rated games")->excludes(r);
    add_from_option(*cmd, a->o.accept.from);
    cmd->add_flag("--verbose", a->o.verbose, "print every turn and every line of the engine's");
    cmd->footer(kFooter);
    cmd->callback([&run, a] {
        if (a->o.token.empty())
            if (const char* t = std::getenv("TRUNKFIELD_TOKEN")) a->o.token = t;
        if (a->o.token.empty())
            throw CLI::ValidationError("--token",
                                       "an account's token is needed (or set "
                                       "$TRUNKFIELD_TOKEN)");
        a->o.source = a->seek                  ? BridgeOptions::Source::QuickMatch
                      : !a->o.opponent.empty() ? BridgeOptions::Source::Challenge
                                               : BridgeOptions::Source::Challenges;
        std::string err;
        play::parse_time_control(a->clock, a->o.clock, err);
        a->o.accept.sizes.clear();
        std::stringstream list(a->sizes);
        for (std::string n; std::getline(list, n, ',');) a->o.accept.sizes.push_back(std::stoi(n));
        a->o.accept.untimed = !a->no_untimed;
        a->o.accept.rated = !a->casual_only;
        a->o.accept.casual = !a->rated_only;
        a->o.log = "bridge";
        a->o.reconnect_forever = true;
        run = [a] {
            std::cout << std::unitbuf;  // progress lines appear as they happen, also in a pipe
            try {
                auto mover = engine_mover(a->engine, a->level, a->o.verbose);
                return run_bridge(a->o, *mover);
            } catch (const std::exception& e) {
                std::cerr << "trunkfield bridge: " << e.what() << "\n";
                return 1;
            }
        };
    });
}

}  // namespace tf::cli
