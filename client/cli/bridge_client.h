// A seat's player over TCP (proto/PROTOCOL.md) whose setups and turns come from a Mover: the
// code behind both `trunkfield bot` (the built-in bot) and `trunkfield bridge` (any engine of
// docs/ENGINE.md, as an account). It finds its games by quick match, by a game's code, or by
// taking the challenges sent to its account under the owner's rules; rebuilds each game from the
// server's snapshot and events with the rules library; answers whenever its seat is to move;
// resynchronises with `watch` after an error or a gap; reconnects with its token when the
// connection drops (a restart, a failover) and goes on with its game.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "movers.h"

namespace tf::cli {

// Which challenges the bridge takes; the others are declined with the reason a person would
// read (PROTOCOL.md "Challenges").
struct AcceptRules {
    std::vector<int> sizes = {7, 9};      // board sizes (variant)
    bool untimed = true;                  // games without a clock (time_control)
    bool correspondence = false;          // days per move (time_control)
    std::int64_t min_seconds = 0;         // initial + 40 × increment below: too_fast
    std::int64_t max_seconds = 3 * 3600;  // above: too_slow
    bool rated = true, casual = true;     // rated / casual
    // Whose challenges: people's and bots' (All), else the others decline with no_bot/only_bot.
    enum class From { All, People, Bots } from = From::All;
};

struct BridgeOptions {
    enum class Source { QuickMatch, Join, Challenges, Challenge };
    struct Node {
        std::string host;
        unsigned short port = 0;
    };
    // The server: one node, or the nodes of a cluster, tried in turn when a connection cannot
    // be made.
    std::vector<Node> nodes;
    Source source = Source::QuickMatch;
    int games = 1;     // games to play before exiting; 0: until stopped (challenges only)
    std::string code;  // Source::Join
    int size = 9;      // Source::QuickMatch and Challenge: 9 or 7
    // Source::Challenge: challenges this account (a bot's too) to each game, with this clock
    // (nullopt: untimed), rated or not; taken back when not accepted within kChallengeWait.
    std::string opponent;
    std::optional<proto::TimeControl> clock;
    bool rated = false;
    std::string name;  // a guest's display name (without a token)
    std::string token;
    AcceptRules accept;
    std::string log = "bot";  // the word before each progress line
    bool verbose = false;
    bool reconnect_forever = false;  // else kReconnectTries, then exit 1
};

// Plays as `o` says with `mover`; the exit code: 0 every game played to its end, 1 a
// connection or protocol failure.
int run_bridge(const BridgeOptions& o, Mover& mover);

// Adds `--server HOST:PORT[,HOST:PORT...]` (required) to `cmd`, read into `nodes`.
void add_server_option(CLI::App& cmd, std::vector<BridgeOptions::Node>& nodes);

// HOST:PORT split: the host before the last colon, the port 1 to 65535 after it.
bool split_server(const std::string& server, std::string& host, unsigned short& port);

// Why `rules` decline a challenge with this variant, time control (null: untimed) and
// rating, from a proto notification's fields (`from_bot`: its `from.bot`); empty: accepted.
std::string decline_reason(const AcceptRules& rules, int size,
                           const std::optional<proto::TimeControl>& tc, bool rated,
                           bool from_bot = false);

// Adds `--from people|bots|all` (whose challenges are taken) to `cmd`, read into `from`.
void add_from_option(CLI::App& cmd, AcceptRules::From& from);

}  // namespace tf::cli
