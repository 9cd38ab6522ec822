// `trunkfield report NAME --reason R [--game CODE] [--text TEXT]`: reports an account to the
// server's moderators (proto/PROTOCOL.md "Reports and moderation"), one POST /api/reports with
// the player's token, as `trunkfield notifications`; prints the report's number.
#include "report_cmd.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "http_api.h"
#include "play_cmd.h"

namespace tf::cli {

namespace {

using Json = nlohmann::json;

// The reasons the server takes, in its words.
const std::vector<std::string> kReasons{"cheating", "abuse", "stalling", "sandbagging", "other"};

struct Args {
    std::string server = "127.0.0.1:8080", token, player, reason, game, text;
};

int fail(const std::string& msg) {
    std::cerr << "trunkfield report: " << msg << "\n";
    return 1;
}

int run_report(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail(err);
    Json body{{"player", a.player}, {"reason", a.reason}, {"text", a.text}};
    if (!a.game.empty()) body["game"] = a.game;
    try {
        const Json r = api->call("POST", "/api/reports", body);
        const Json id = r.value("id", Json());
        if (!id.is_number_integer()) throw std::runtime_error("the server's answer has no id");
        std::cout << "Report #" << id.get<std::int64_t>() << " sent: " << a.player << ", "
                  << a.reason << (a.game.empty() ? "" : ", game " + a.game)
                  << ". You are told when a moderator has handled it.\n";
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand("report", "report an account to the server's moderators");
    auto a = std::make_shared<Args>();
    cmd->add_option("NAME", a->player, "the account (its username)")
        ->required()
        ->check(username_check());
    cmd->add_option("--reason", a->reason,
                    "cheating, abuse (in chat), stalling, sandbagging (losing on purpose) or other")
        ->required()
        ->check(CLI::IsMember(kReasons));
    cmd->add_option("--game", a->game, "the game the report is about")
        ->transform(game_code_check());
    cmd->add_option("--text", a->text, "what happened, in your words (up to 2,000 characters)")
        ->type_name("TEXT");
    add_http_server_option(cmd, a->server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
    cmd->footer(
        "Reporting the same account about the same game again, while that report is open, gives\n"
        "the same number. The answer comes as a notification (trunkfield notifications).\n"
        "exit codes: 0 sent, 1 refused (the error says why) or no server, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_report(*a); }; });
}

}  // namespace tf::cli
