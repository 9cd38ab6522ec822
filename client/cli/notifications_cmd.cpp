// `trunkfield notifications`: the player's notifications (proto/PROTOCOL.md "Notifications"),
// read from the server's HTTP API with the player's token, one line each, newest first: the
// unread ones (marked *), or with --all every one; --read then marks them all read.
#include "notifications_cmd.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "http_api.h"
#include "play_cmd.h"
#include "play_notices.h"

namespace tf::cli {

namespace {

using Json = nlohmann::json;

struct Args {
    std::string server = "127.0.0.1:8080", token;
    bool all = false, read = false;
};

constexpr int kPage = 100;      // the API's largest page
constexpr int kMaxPages = 100;  // --all: at most this many pages (10 000 notifications)

int fail(const std::string& msg) {
    std::cerr << "trunkfield notifications: " << msg << "\n";
    return 1;
}

bool is_unread(const Json& n) {
    auto r = n.find("read");
    return r != n.end() && r->is_boolean() && !r->get<bool>();
}

int run_notifications(const Args& a) {
    std::string err;
    const auto api = http_api(a.server, a.token, err);
    if (!api) return fail(err);
    try {
        // Newest first, a page at a time: until every unread one is seen (or every one, --all).
        std::vector<Json> shown;
        std::int64_t unread = -1, seen_unread = 0;
        std::string before;
        for (int page = 0; page < kMaxPages; ++page) {
            Json j = api->call("GET", "/api/notifications?limit=" + std::to_string(kPage) + before);
            if (unread < 0 && j.value("unread", Json()).is_number_integer())
                unread = j["unread"].get<std::int64_t>();
            const Json list = j.value("notifications", Json::array());
            if (!list.is_array()) throw std::runtime_error("the server's list is not a list");
            for (const Json& n : list) {
                if (!n.is_object()) continue;
                const bool fresh = is_unread(n);
                seen_unread += fresh;
                if (a.all || fresh) shown.push_back(n);
            }
            if (list.size() < std::size_t(kPage) || list.empty()) break;
            if (!a.all && seen_unread >= unread) break;
            const Json& last = list.back();
            if (!last.is_object() || !last.value("id", Json()).is_number_integer()) break;
            before = "&before=" + std::to_string(last["id"].get<std::int64_t>());
        }
        if (unread < 0) unread = seen_unread;
        if (shown.empty()) {
            std::cout << (a.all ? "No notifications.\n"
                                : "No unread notifications (--all lists the read ones too).\n");
        } else {
            std::cout << unread << " unread" << (a.all ? ", * marks them" : "") << ":\n";
            for (const Json& n : shown)
                std::cout << (is_unread(n) ? "* " : "  ") << local_time(n.value("at", Json()))
                          << "  " << play::notification_text(n, play::NoticeFor::Shell) << "\n";
        }
        if (a.read && unread > 0) {
            Json r = api->call("POST", "/api/notifications/read", Json{{"all", true}});
            std::cout << "Marked all read (" << r.value("unread", Json(0)).dump()
                      << " unread now).\n";
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

}  // namespace

void add_notifications_command(CLI::App& app, Run& run) {
    CLI::App* cmd = app.add_subcommand(
        "notifications", "your notifications: challenges and their answers (newest first)");
    auto a = std::make_shared<Args>();
    add_http_server_option(cmd, a->server, "the server's HTTP port (as for `trunkfield puzzle`)");
    add_token_option(cmd, a->token,
                     "your account's token (default: TRUNKFIELD_TOKEN, or the one `trunkfield "
                     "play` saved for that host)");
    cmd->add_flag("--all", a->all, "the read ones too (unread ones are marked *)");
    cmd->add_flag("--read", a->read, "then mark them all read");
    cmd->footer("exit codes: 0 listed, 1 the server refused or cannot be reached, 2 usage");
    cmd->callback([&run, a] { run = [a] { return run_notifications(*a); }; });
}

}  // namespace tf::cli
