// The owner's side of forwarding (docs/ARCHITECTURE.md "Forwarding"): a stand-in connection
// (BusSession, a Session like any other) for each connection of another node with requests
// about games held here, which runs each numbered request once and remembers its answer; and
// the queue of what the stand-ins send back, where one message serves every watcher of a game
// on one node.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "server/base/participant.h"
#include "server/cluster/bus_messages.h"
#include "server/cluster/cluster_core.h"
#include "server/lobby/player_index.h"

namespace tf::server::cluster_detail {

class BusSession;

class StandIns : public std::enable_shared_from_this<StandIns> {
  public:
    explicit StandIns(Core& core);
    void on_request(const bus::Req& m, std::string_view body);
    void on_gone(const std::string& from, std::uint64_t conn);
    void on_alive(const bus::Alive& m);
    // The stand-in of (origin process, connection), made if need be.
    std::shared_ptr<Member> remote(const std::string& origin, std::uint64_t conn, const Player& p);
    // Every 2 s: stand-ins of origins silent for 10 s leave their rooms.
    void drop_silent(SteadyTime now);
    // The nodes whose lease runs: the stand-ins of the others' connections leave, unless
    // their origin is still heard on the bus (its lease lapsed with PostgreSQL, its
    // connections did not).
    void nodes_alive(const std::set<std::string>& alive);
    void clear();

    // What a stand-in sends its origin (any thread), in order per connection.
    void send_out(const std::string& origin, std::uint64_t conn, const Msg& m,
                  std::uint64_t seq = 0);
    void send_close(const std::string& origin, std::uint64_t conn, const std::string& reason);
    void send_notmine(const std::string& origin, std::uint64_t conn, const std::string& code);

    struct Stats {
        std::uint64_t forwarded_in = 0, out_messages = 0, out_deliveries = 0;
        std::size_t remote_connections = 0;
    };
    Stats stats() const;

  private:
    using RemoteKey = std::pair<std::string, std::uint64_t>;  // (origin process, its connection)
    template <class Pred>
    std::vector<std::shared_ptr<BusSession>> take_remotes_locked(Pred drop);
    std::shared_ptr<BusSession> remote_locked(const std::string& origin, std::uint64_t conn,
                                              const Player& p);

    Core& core_;
    mutable std::mutex m_;
    std::map<RemoteKey, std::shared_ptr<BusSession>> remotes_;
    std::map<std::string, SteadyTime> heard_;  // the last `alive` of each origin process
    // Stand-ins dropped because their origin looked dead (silent, past its lease) and with
    // them what they watched: an origin that lists one alive again is told `rewatch`.
    std::map<RemoteKey, SteadyTime> dropped_;
    std::uint64_t forwarded_in_ = 0;

    // What the stand-ins send their origins waits here for the strand, in the order it was
    // sent, so that a message a room sends several connections of one node (an event for its
    // watchers there) crosses the bus once: it joins the entry already waiting for that node
    // with that message, unless one of the connection's own later messages waits after it.
    struct Outgoing {
        std::string origin;
        Msg msg;                           // an `out`'s body (null: `raw` is the payload)
        std::uint64_t seq = 0;             // the request it answers (then one connection)
        std::vector<std::uint64_t> conns;  // the connections it goes to
        std::string raw;
    };
    void queue_locked(Outgoing o);
    void flush_out();
    std::mutex out_m_;
    std::vector<Outgoing> outgoing_;
    std::map<std::pair<std::string, const std::string*>, std::size_t> joinable_;
    std::map<RemoteKey, std::size_t> last_of_conn_;
    bool out_posted_ = false;
    std::atomic<std::uint64_t> out_messages_{0}, out_deliveries_{0};
};

}  // namespace tf::server::cluster_detail
