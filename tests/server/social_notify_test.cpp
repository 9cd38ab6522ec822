// A tournament's pairing told once per game (server/social/social_service.h notify_once), over
// a SQLite store in a temporary folder: told once; a notification kept by a node that died
// before sending it is sent again, the same one (its id), while it is unread, and not once read.
#include <doctest/doctest.h>

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/json.h"
#include "server/social/social_service.h"
#include "server/store/social_db.h"

namespace tf::server {

namespace {

struct Sent {
    std::mutex m;
    std::vector<nlohmann::json> items;  // the notifications' items, in order
    std::size_t size() {
        std::lock_guard lock(m);
        return items.size();
    }
    // Waits (at most 5 s) until `n` were sent.
    bool wait(std::size_t n) {
        for (int i = 0; i < 500 && size() < n; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return size() >= n;
    }
};

}  // namespace

TEST_CASE("social: a pairing kept but never sent is sent again, the same one, while unread") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("tf-social-" + std::to_string(::getpid()) + "-" +
                      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(dir);
    open_sqlite_social_migrating(dir.string());  // the schema

    Sent sent;
    {
        SocialService social([d = dir.string()] { return open_sqlite_social(d); },
                             [&](const std::string& player, const std::string& text) {
                                 auto j = nlohmann::json::parse(text);
                                 std::lock_guard lock(sent.m);
                                 j["to"] = player;
                                 sent.items.push_back(std::move(j));
                             },
                             [](const std::string&) {}, [](const std::string&) {});
        const nlohmann::json fields{{"game", "abc234"}, {"side", "silver"}};

        // Told once: a second telling of the same game sends it again (unread), same id.
        social.notify_once("p-ann", "tournament_game", fields);
        REQUIRE(sent.wait(1));
        const auto first = sent.items[0];
        CHECK(first["to"] == "p-ann");
        CHECK(first["kind"] == "tournament_game");
        social.notify_once("p-ann", "tournament_game", fields);
        REQUIRE(sent.wait(2));
        CHECK(sent.items[1]["id"] == first["id"]);

        // A node that kept bob's and died before sending it: the next telling sends that one.
        auto db = open_sqlite_social(dir.string());
        StoredNotice kept{0, std::string("p-bob"), std::string("tournament_game"), fields.dump(), 1,
                          0};
        kept = db->add(kept);
        social.notify_once("p-bob", "tournament_game", fields);
        REQUIRE(sent.wait(3));
        CHECK(sent.items[2]["to"] == "p-bob");
        CHECK(sent.items[2]["id"] == kept.id);

        // Read: nothing more to send. Another game is a notification of its own.
        db->mark_read("p-bob", {}, 2);
        social.notify_once("p-bob", "tournament_game", fields);
        social.notify_once("p-bob", "tournament_game", {{"game", "xyz789"}});
        REQUIRE(sent.wait(4));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CHECK(sent.size() == 4);
        CHECK(sent.items[3]["id"] != kept.id);
        CHECK(sent.items[3]["game"] == "xyz789");
    }
    std::filesystem::remove_all(dir);
}

}  // namespace tf::server
