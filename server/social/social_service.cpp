#include "server/social/social_service.h"

#include <spdlog/spdlog.h>

#include <boost/asio/system_executor.hpp>

#include "proto/messages.h"
#include "server/base/time.h"

namespace tf::server {

nlohmann::json notice_json(const StoredNotice& n) {
    auto j = nlohmann::json::parse(n.body, nullptr, false);
    if (!j.is_object()) j = nlohmann::json::object();
    j["id"] = n.id;
    j["kind"] = n.kind;
    j["at"] = n.at_ms;
    j["read"] = n.read_ms != 0;
    return j;
}

SocialService::SocialService(Open open, Deliver deliver, Changed changed)
    : deliver_(std::move(deliver)),
      changed_(std::move(changed)),
      thread_(std::move(open), kMaxQueued, "tf-social") {}

void SocialService::tell_followers(const std::string& player_id, const std::string& name,
                                   const std::string& code) {
    auto job = [this, player_id, name, code](SocialDb& db) {
        const nlohmann::json fields = {{"game", code},
                                       {"player", {{"id", player_id}, {"name", name}}}};
        try {
            for (const auto& follower : db.followers_told(player_id)) {
                StoredNotice n{0, follower, "followed_game", fields.dump(), epoch_ms(), 0};
                deliver_(follower, proto::to_text(proto::Notification{notice_json(db.add(n))}));
            }
        } catch (const std::exception& e) {
            spdlog::error("notifications: the followers of {} were not told of {}: {}", player_id,
                          code, e.what());
            throw;
        }
        return true;
    };
    thread_.run<bool>(job, boost::asio::system_executor(), {}, false);
}

void SocialService::notify(const std::string& player_id, const std::string& kind,
                           nlohmann::json fields) {
    StoredNotice n{0, player_id, kind, fields.dump(), epoch_ms(), 0};
    // Kept and delivered on the social thread, in the order they were made.
    auto job = [deliver = deliver_, n](SocialDb& db) {
        try {
            deliver(n.player_id, proto::to_text(proto::Notification{notice_json(db.add(n))}));
        } catch (const std::exception& e) {
            spdlog::error("notifications: one for {} ({}) was not kept: {}", n.player_id, n.kind,
                          e.what());
            deliver(n.player_id, proto::to_text(proto::Notification{notice_json(n)}));
            throw;  // a fault: the thread opens a new connection
        }
        return true;
    };
    thread_.run<bool>(job, boost::asio::system_executor(), {}, false);
}

}  // namespace tf::server
