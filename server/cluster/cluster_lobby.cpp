#include "server/cluster/cluster_lobby.h"

#include <optional>
#include <vector>

#include "server/room/room.h"
#include "server/session/hub.h"

namespace tf::server::cluster_detail {

void LobbyReplica::changed(const std::string& code) {
    std::lock_guard lock(m_);
    if ((listed_.count(code) || core_.hub.directory.find(code)) && dirty_.insert(code).second)
        dirty_order_.push_back(code);
}

// The body: the open entry's list message and the live entry's, a line each ("null" for none),
// as the lobby would send them.
void LobbyReplica::publish() {
    std::vector<std::string> batch;
    {
        std::lock_guard lock(m_);
        while (!dirty_order_.empty() && batch.size() < kPerTick) {
            batch.push_back(std::move(dirty_order_.front()));
            dirty_order_.pop_front();
            dirty_.erase(batch.back());
        }
    }
    Hub& hub = core_.hub;
    for (const auto& code : batch) {
        std::optional<proto::OpenGame> open;
        std::optional<proto::LiveGame> live;
        if (hub.directory.find(code)) {
            open = hub.listings.open_entry(code);
            live = hub.listings.live_entry(code);
        }
        {
            std::lock_guard lock(m_);
            if (open || live)
                listed_.insert(code);
            else if (!listed_.erase(code))
                continue;  // never published: nothing to withdraw
        }
        std::string body = open ? proto::to_text(proto::Lobby{{*open}}) : "null";
        body += '\n';
        body += live ? proto::to_text(proto::Live{{*live}}) : "null";
        core_.publish(kAll, bus::encode(bus::Lobby{core_.node, code}, body));
    }
}

void LobbyReplica::on_entry(const bus::Lobby& m, std::string_view body) {
    const std::string& code = m.code;
    const std::string& from = m.from;
    Hub& hub = core_.hub;
    if (code.empty() || hub.directory.find(code)) return;  // ours: we know better
    std::optional<proto::OpenGame> open;
    std::optional<proto::LiveGame> live;
    const auto nl = body.find('\n');
    if (nl == std::string_view::npos) return;
    if (auto parsed = proto::parse_server(body.substr(0, nl));
        auto* l = std::get_if<proto::ServerMsg>(&parsed))
        if (auto* lobby = std::get_if<proto::Lobby>(l); lobby && !lobby->games.empty())
            open = lobby->games[0];
    if (auto parsed = proto::parse_server(body.substr(nl + 1));
        auto* l = std::get_if<proto::ServerMsg>(&parsed))
        if (auto* lv = std::get_if<proto::Live>(l); lv && !lv->games.empty()) live = lv->games[0];
    {
        std::lock_guard lock(m_);
        auto it = owner_.find(code);
        if (!open && !live) {
            // A withdrawal counts only from the node whose entry we hold.
            if (it == owner_.end() || it->second != from) return;
            owner_.erase(it);
        } else {
            owner_[code] = from;
        }
    }
    hub.listings.set_open(code, open, false);
    hub.listings.set_live(code, live, false, false);
}

void LobbyReplica::resync() {
    std::lock_guard lock(m_);
    for (const auto& room : core_.hub.directory.all())
        if (dirty_.insert(room->code()).second) dirty_order_.push_back(room->code());
}

void LobbyReplica::nodes_alive(const std::set<std::string>& alive) {
    std::vector<std::string> unlisted;
    {
        std::lock_guard lock(m_);
        for (auto it = owner_.begin(); it != owner_.end();) {
            if (!alive.count(it->second)) {
                unlisted.push_back(it->first);
                it = owner_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto& code : unlisted)
        if (!core_.hub.directory.find(code)) core_.hub.listings.remove(code, false);
}

}  // namespace tf::server::cluster_detail
