// `trunkfield bot`: the computer opponent of common/bot.h as a normal TCP client, through the
// bridge's code (bridge_client.h) with the built-in mover: K quick matches, the game CODE, or
// (--challenges) the challenges sent to its account, as the bridge takes them.
#include "bot_cmd.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "bridge_client.h"
#include "common/bot.h"

namespace tf::cli {

namespace {

constexpr const char* kFooter =
    R"(Plays as the computer opponent (common/bot.h) over TCP: K untimed quick matches in a row,
or the game CODE (joined as its second player; then K must be 1), or with --challenges and
the --token of an account (a bot account: the built-in levels people can challenge, docs/
OPERATING.md "Bot accounts") the challenges sent to it, until stopped: board sizes 7 and 9,
any clock up to 3 hours (initial + 40 x increment), untimed or not, rated or casual; and the
games of the tournaments the account entered (docs/TOURNAMENTS.md), one game at a time.
exit codes: 0 every game was played to its end, 1 a connection or protocol failure,
            2 a usage error)";

}  // namespace

void add_bot_command(CLI::App& app, Run& run) {
    CLI::App* bot = app.add_subcommand("bot", "play on a server as the computer opponent");
    auto o = std::make_shared<BridgeOptions>();
    auto level = std::make_shared<int>(0);
    auto seed = std::make_shared<std::uint64_t>(1);
    add_server_option(*bot, o->nodes);
    bot->add_option("--level", *level,
                    "bot strength, 1 (weakest) to 5 (strongest; under half a second a turn)")
        ->type_name("N")
        ->required()
        ->transform(whole_number(kMinBotLevel, kMaxBotLevel));
    bot->add_option("--games", o->games, "quick matches to play in a row")
        ->type_name("K")
        ->capture_default_str()
        ->transform(whole_number(1, 1'000'000));
    bot->add_option("--size", o->size,
                    "quick matches on the standard board (9) or the small one (7)")
        ->capture_default_str()
        ->check(CLI::IsMember({7, 9}));
    bot->add_option("--code", o->code, "join this game instead (one game: leave out --games)")
        ->type_name("CODE")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                return s.empty() || s.size() > 64 ? "bad --code '" + s + "'" : "";
            },
            ""));
    bot->add_option("--name", o->name, "display name, 1 to 32 bytes (default bot-<level>)")
        ->type_name("NAME")
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                return s.empty() || s.size() > 32 ? "must be 1 to 32 bytes" : "";
            },
            ""));
    bot->add_option("--seed", *seed, "varies the bot's choices among equal ones")
        ->type_name("S")
        ->capture_default_str()
        ->transform(whole_number(0, UINT64_MAX / 2).description(""));
    bot->add_option("--token", o->token,
                    "play as this token's player (an account's: rated games; its unfinished "
                    "games first)")
        ->type_name("TOKEN");
    auto challenges = std::make_shared<bool>(false);
    bot->add_flag("--challenges", *challenges,
                  "take the challenges sent to the --token's account, and play the games its "
                  "tournaments pair, until stopped");
    add_from_option(*bot, o->accept.from);
    bot->add_flag("--verbose", o->verbose, "print every turn");
    bot->footer(kFooter);
    bot->callback([&run, o, level, seed, challenges] {
        if (!o->code.empty() && o->games != 1)
            throw CLI::ValidationError("--code plays one game: leave out --games");
        if (o->name.empty()) o->name = "bot-" + std::to_string(*level);
        o->source =
            o->code.empty() ? BridgeOptions::Source::QuickMatch : BridgeOptions::Source::Join;
        if (*challenges) {
            if (o->token.empty() || !o->code.empty())
                throw CLI::ValidationError("--challenges",
                                           "needs the --token of an account, and no --code");
            o->source = BridgeOptions::Source::Challenges;
            o->games = 0;  // until stopped
            o->reconnect_forever = true;
        }
        run = [o, level, seed] {
            std::cout << std::unitbuf;  // progress lines appear as they happen, also in a pipe
            try {
                auto mover = builtin_mover(*level, *seed);
                return run_bridge(*o, *mover);
            } catch (const std::exception& e) {  // e.g. a write to a closed socket
                std::cerr << "trunkfield bot: " << e.what() << "\n";
                return 1;
            }
        };
    });
}

}  // namespace tf::cli
