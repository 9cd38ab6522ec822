// The lobby across nodes (docs/ARCHITECTURE.md "Lobby"), beside Listings: this node's games'
// entries published on the common channel, a game's at most once per tick however many turns
// changed it (16 games per 50-ms tick: a crowd of live games costs no burst), the other nodes'
// entries applied to this node's lists, and dropped with their node.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "server/cluster/bus_messages.h"
#include "server/cluster/cluster_core.h"

namespace tf::server::cluster_detail {

class LobbyReplica {
  public:
    explicit LobbyReplica(Core& core) : core_(core) {}
    // One of this node's games' entries changed (Listings::on_change; any thread).
    void changed(const std::string& code);
    // Every tick (the strand): publishes the next changed entries.
    void publish();
    // Another node's entry (or its withdrawal).
    void on_entry(const bus::Lobby& m, std::string_view body);
    // Publish every game of this node again (the bus came back, or a node asked: `sync`).
    void resync();
    // The live nodes: the others' entries go with their node.
    void nodes_alive(const std::set<std::string>& alive);

  private:
    static constexpr std::size_t kPerTick = 16;  // every 50 ms: 320 entries a second
    Core& core_;
    std::mutex m_;
    // Our games whose entries changed, in the order they did.
    std::set<std::string> dirty_;
    std::deque<std::string> dirty_order_;
    std::set<std::string> listed_;              // our games with entries published
    std::map<std::string, std::string> owner_;  // other nodes' listed games: their node
};

}  // namespace tf::server::cluster_detail
