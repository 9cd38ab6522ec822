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

SocialService::SocialService(Open open, Deliver deliver, Changed changed, Closed closed)
    : deliver_(std::move(deliver)),
      changed_(std::move(changed)),
      closed_(std::move(closed)),
      thread_(std::move(open), kMaxQueued, "tf-social") {}

void SocialService::tell(SocialDb& db, const std::string& player_id, const std::string& kind,
                         const nlohmann::json& fields) {
    StoredNotice n{0, player_id, kind, fields.dump(), epoch_ms(), 0};
    try {
        deliver_(player_id, proto::to_text(proto::Notification{notice_json(db.add(n))}));
        if (mailer_ && (kind == "your_turn" || kind == "challenge")) mailer_->wake();
    } catch (const std::exception& e) {
        spdlog::error("notifications: one for {} ({}) was not kept: {}", player_id, kind, e.what());
        deliver_(player_id, proto::to_text(proto::Notification{notice_json(n)}));
        throw;  // a fault: the thread opens a new connection
    }
}

void SocialService::tell_followers(const std::string& player_id, const std::string& name,
                                   const std::string& code) {
    auto job = [this, player_id, name, code](SocialDb& db) {
        const nlohmann::json fields = {{"game", code},
                                       {"player", {{"id", player_id}, {"name", name}}}};
        for (const auto& follower : db.followers_told(player_id))
            tell(db, follower, "followed_game", fields);
        return true;
    };
    thread_.run<bool>(job, boost::asio::system_executor(), {}, false);
}

// Kept and delivered on the social thread, in the order they were made.
void SocialService::notify(const std::string& player_id, const std::string& kind,
                           nlohmann::json fields) {
    auto job = [this, player_id, kind, fields = std::move(fields)](SocialDb& db) {
        tell(db, player_id, kind, fields);
        return true;
    };
    thread_.run<bool>(job, boost::asio::system_executor(), {}, false);
}

void SocialService::notify_once(const std::string& player_id, const std::string& kind,
                                nlohmann::json fields) {
    auto job = [this, player_id, kind, fields = std::move(fields)](SocialDb& db) {
        const auto code = fields.value("game", "");
        const auto kept = db.told(player_id, kind, code);
        if (!kept) {
            tell(db, player_id, kind, fields);
        } else if (!kept->read_ms) {
            // Kept by a node that may have died before sending it (a director taking over
            // tells again): sent again, the same notification (its id), while it is unread.
            deliver_(player_id, proto::to_text(proto::Notification{notice_json(*kept)}));
        }
        return true;
    };
    thread_.run<bool>(job, boost::asio::system_executor(), {}, false);
}

void SocialService::acted(SocialDb& db, const ModAction& a, const ActResult& r) {
    if (a.action == "close")
        closed_(a.player_id);
    else if (a.action != "warn" && a.action != "dismiss")
        changed_(a.player_id);
    if (a.action == "warn") tell(db, a.player_id, "warning", {{"note", a.note}});
    if (!r.reporter_id.empty())
        tell(db, r.reporter_id, "report_handled",
             {{"report", a.report_id},
              {"player", {{"id", a.player_id}, {"name", a.player}}},
              {"outcome", a.action == "dismiss" ? "no_action" : "action_taken"}});
}

}  // namespace tf::server
