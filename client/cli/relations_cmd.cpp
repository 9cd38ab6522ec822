// `trunkfield follow NAME`, `unfollow`, `block`, `unblock`, `mute`, `unmute` and `following`
// (proto/PROTOCOL.md "Follow and block"), on the server's HTTP API with the player's token, as
// `trunkfield notifications`: each change is one POST /api/relations and a line saying what holds
// now; `following` prints GET /api/relations as tables: the accounts followed (online, the
// public game each plays and where to watch it, whether you are told of their games), then those
// blocked, then those muted.
#include "relations_cmd.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "http_api.h"
#include "play_cmd.h"
#include "play_input.h"
#include "proto/messages.h"

namespace tf::cli {

namespace {

using Json = nlohmann::json;

struct Args {
    std::string server = "127.0.0.1:8080", token, name;
    bool quiet = false;  // follow: without being told of the account's games
};

int fail(std::string_view command, const std::string& msg) {
    std::cerr << "trunkfield " << command << ": " << msg << "\n";
    return 1;
}

// The change commands; each is also the key of the request's body ({"block": NAME}).
struct Change {
    const char* verb;
    const char* help;
};
constexpr Change kChanges[] = {
    {"follow", "follow an account: see it online in `trunkfield following`, be told of its games"},
    {"unfollow", "stop following an account"},
    {"block", "block an account: no challenges, games, chat or follows between you, both ways"},
    {"unblock", "lift a block"},
    {"mute", "stop seeing an account's chat lines (it is not told; follows stay)"},
    {"unmute", "see an account's chat lines again"},
};

// What holds once `verb` on `name` was answered.
std::string confirmation(std::string_view verb, const std::string& name, bool quiet) {
    if (verb == "follow" && quiet)
        return "Following " + name + " quietly: listed by trunkfield following, not told of " +
               name + "'s games.";
    if (verb == "follow")
        return "Following " + name + ": you are told when " + name + " starts a public game.";
    if (verb == "unfollow") return "No longer following " + name + ".";
    if (verb == "block")
        return "Blocked " + name + ": no challenges, games, chat or follows between you.";
    if (verb == "unblock") return "Unblocked " + name + ".";
    if (verb == "mute")
        return "Muted " + name + ": you no longer see " + name + "'s chat lines (" + name +
               " is not told).";
    return "Unmuted " + name + ": you see " + name + "'s chat lines again.";
}

int run_change(std::string_view verb, const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail(verb, err);
    Json body{{std::string(verb), a.name}};
    if (verb == "follow" && a.quiet) body["notify"] = false;
    try {
        api->call("POST", "/api/relations", body);
    } catch (const std::exception& e) {
        return fail(verb, e.what());
    }
    std::cout << confirmation(verb, a.name, a.quiet) << "\n";
    return 0;
}

// ---- following ---------------------------------------------------------------------------------

void print_following(const HttpApi& api, const std::vector<Json>& following) {
    if (following.empty()) {
        std::cout << "Following nobody (trunkfield follow NAME).\n";
        return;
    }
    std::cout << "Following (" << following.size() << "):\n";
    std::vector<std::vector<std::string>> rows{{"NAME", "ONLINE", "PLAYING", "NOTIFY", "SINCE"}};
    for (const Json& f : following) {
        const Json playing = f.value("playing", Json()), online = f.value("online", Json());
        const Json notify = f.value("notify", Json());
        std::string game = "-";
        if (playing.is_string()) {
            const std::string code = playing.get<std::string>();
            game = proto::is_game_code(code) ? code + "  watch: " + api.game_link(code)
                                             : play::clean_text(code, 20);
        }
        rows.push_back({text_of(f, "name"),
                        online.is_boolean() ? (online.get<bool>() ? "online" : "offline") : "?",
                        game, notify.is_boolean() ? (notify.get<bool>() ? "yes" : "no") : "?",
                        local_time(f.value("since", Json()))});
    }
    print_table(rows);
}

// The blocked or muted accounts (`what`: "Blocked", "Muted").
void print_names(const char* what, const std::optional<std::vector<Json>>& names) {
    if (!names) {
        std::cout << what << ": this server does not list them.\n";
        return;
    }
    if (names->empty()) {
        std::cout << what << ": nobody.\n";
        return;
    }
    std::cout << what << " (" << names->size() << "):\n";
    std::vector<std::vector<std::string>> rows{{"NAME", "SINCE"}};
    for (const Json& n : *names)
        rows.push_back({text_of(n, "name"), local_time(n.value("since", Json()))});
    print_table(rows);
}

int run_following(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail("following", err);
    try {
        const Json j = api->call("GET", "/api/relations");
        const auto following = list_of(j, "following");
        if (!following) throw std::runtime_error("the server's answer has no list of follows");
        print_following(*api, *following);
        print_names("Blocked", list_of(j, "blocked"));
        print_names("Muted", list_of(j, "muted"));
    } catch (const std::exception& e) {
        return fail("following", e.what());
    }
    return 0;
}

// --server and --token, as `trunkfield notifications` takes them.
void add_api_options(CLI::App* cmd, Args& a) {
    add_http_server_option(cmd, a.server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a.token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
}

void add_change(CLI::App& app, Run& run, const Change& change) {
    CLI::App* cmd = app.add_subcommand(change.verb, change.help);
    auto a = std::make_shared<Args>();
    cmd->add_option("NAME", a->name, "the account (its username)")
        ->required()
        ->check(username_check());
    if (std::string_view(change.verb) == "follow")
        cmd->add_flag("--quiet", a->quiet, "follow without being told of the account's games");
    add_api_options(cmd, *a);
    cmd->footer(
        "Every change answers at once and holds on every server node; doing it twice does "
        "nothing more.\nexit codes: 0 done, 1 refused (the error says why) or no server, 2 usage");
    const std::string_view verb = change.verb;
    cmd->callback([&run, a, verb] { run = [a, verb] { return run_change(verb, *a); }; });
}

}  // namespace

void add_relations_commands(CLI::App& app, Run& run) {
    for (const Change& change : kChanges) add_change(app, run, change);
    CLI::App* cmd = app.add_subcommand(
        "following", "the accounts you follow (online, playing, where to watch), block and mute");
    auto a = std::make_shared<Args>();
    add_api_options(cmd, *a);
    cmd->footer("exit codes: 0 listed, 1 the server refused or cannot be reached, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_following(*a); }; });
}

}  // namespace tf::cli
