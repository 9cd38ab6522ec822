// The origin's side of forwarding (docs/ARCHITECTURE.md "Forwarding"): this node's connections
// whose requests go to the nodes that hold their games. Per connection and game a route: its
// requests queued and numbered (run once by the owner), the answers passed on once, the events
// in version order without a gap, caught up from the owner when the game moves, when either
// node's bus link comes back, or when a gap shows.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "proto/messages.h"
#include "server/base/participant.h"
#include "server/cluster/bus_messages.h"
#include "server/cluster/cluster_core.h"

namespace tf::server {
class Session;
}

namespace tf::server::cluster_detail {

class SharedPool;

// The game and version of an event or a snapshot, read off the text as serialize_server.cpp
// writes it.
struct Versioned {
    std::string game;
    std::int64_t version = 0;
    bool snapshot = false;
    // An event that carries the game's version without adding one (the spectator count,
    // ratings, a spectators' chat line): outside the order of the others.
    bool unversioned = false;
};
std::optional<Versioned> versioned(std::string_view m);

class Routes : public std::enable_shared_from_this<Routes> {
  public:
    // `claim` claims the games of dead nodes now (on the database thread), when a lookup finds
    // the owner's lease expired.
    Routes(Core& core, SharedPool& pool, std::function<void(pg::Blocking&)> claim);

    void forward(const std::shared_ptr<Session>& from, const Player& p, const std::string& code,
                 std::string text, const proto::ClientMsg& msg);
    // The connection closed: its owners are told.
    void closed(std::uint64_t conn);
    // This node serves `code` now: its routes are handed to the connections here.
    void adopt(const std::string& code);
    void on_out(const bus::Out& m, std::string_view body);
    void on_notmine(const bus::NotMine& m);
    void on_close(const bus::Close& m);
    void on_rewatch(const bus::Rewatch& m);
    void on_moved(const std::string& code, const std::string& owner);
    void on_back(const std::string& from);
    // This node's bus is back: every route is looked up again and caught up.
    void bus_up();
    // Every 2 s (the strand): tells the owners which connections are open; asks again for
    // gaps still open.
    void every_2s(SteadyTime now);
    void clear();

    struct Stats {
        std::uint64_t forwarded_out = 0, catchups = 0, answers_dropped = 0;
        std::size_t routes = 0;
    };
    Stats stats() const;

  private:
    // ---- the origin's side: connections of ours with requests forwarded to other nodes ----
    // A request on its way to the owner: `seq` numbers the client's requests on this
    // connection (the owner runs each number once); 0 for the catch-ups this node asks itself.
    struct Req {
        std::uint64_t seq = 0;
        std::string text;
        // What answers it: its ref; for a watch or a join (no ref), the game's snapshot or
        // events (kSyncKey); "" for the others (chat, resign...).
        std::string key;
    };
    struct Route {
        std::string owner;  // the node serving the game, "" while not known
        bool resolving = false;
        bool watching = false;   // events came: on a move, ask the new owner to replay
        std::int64_t last = -1;  // the highest version passed on (-1: the next one, whatever)
        // The owner said the game is paused (store_failed, in_doubt, a suspended snapshot): the
        // client waits for the snapshot of its resumption, so a catch-up asks for a snapshot.
        bool suspended = false;
        std::deque<Req> queue;     // requests waiting for the owner
        std::deque<Req> inflight;  // published, not yet confirmed received
        // Published requests with a ref not answered yet (an ack or an error names it): a
        // dead owner may have taken them with it, so they go again to the next one.
        std::deque<std::pair<std::string, Req>> unanswered;  // (ref or kSyncKey, request)
        std::uint64_t gen = 0;  // bumped when the in-flight ones are taken back
        int attempts = 0;       // lookups in a row without a live owner
        // Events are passed on in version order, without a gap: one above last + 1 waits here
        // while the missing ones are asked of the owner (a catch-up), which fills the gap.
        std::map<std::int64_t, Msg> held;
        SteadyTime asked{};  // when the catch-up for the gap was asked (held not empty)
    };
    struct Link {
        std::weak_ptr<Session> session;
        Player player;
        std::map<std::string, Route> routes;
        std::uint64_t next_seq = 1;
        // The sequence numbers answered lately: a second answer to one request (the owner
        // answering a re-send from its memory while the first answer was on its way) is dropped.
        std::set<std::uint64_t> answered;
    };
    std::map<std::uint64_t, Link> links_;

    Core& core_;
    Hub& hub_;
    const std::string& node_;
    const std::string& me_;
    DbThread& db_;
    std::unique_ptr<BusLink>& bus_;
    asio::strand<asio::io_context::executor_type>& strand_;
    SharedPool& pool_;
    std::function<void(pg::Blocking&)> claim_;
    mutable std::mutex m_;
    Stats stats_;

    static constexpr const char* kSyncKey = "#sync";
    static constexpr std::size_t kHeldMax = 2048;
    struct Lookup {
        bool found = false, unfinished = false, live = false;
        std::string owner;
        bool failed = false;
    };
    static std::string catch_up_text(const std::string& code, const Route& r);
    static void take_back(Route& r);
    Route* route_locked(std::uint64_t conn, const std::string& code);
    void pump(std::uint64_t conn, const std::string& code, Route& r);
    void sent(std::uint64_t conn, const std::string& code, std::uint64_t gen, long receivers);
    void reroute(std::uint64_t conn, const std::string& code, Route& r,
                 std::chrono::milliseconds delay);
    void resolve(std::uint64_t conn, const std::string& code, Route& r,
                 std::chrono::milliseconds delay);
    void resolved(std::uint64_t conn, const std::string& code, std::optional<Lookup> res);
    void out_to(std::uint64_t conn, std::uint64_t seq, const std::string& from,
                const std::optional<Versioned>& v, const Msg& body);
    bool answer_locked(std::uint64_t conn, std::uint64_t seq, const std::string& from);
    void order_locked(std::uint64_t conn, const std::string& code, Route& r, const Versioned& v,
                      const Msg& body, std::vector<Msg>& pass);
    void ask_missing_locked(std::uint64_t conn, const std::string& code, Route& r);
    void send_alive();
    void ask_again(SteadyTime now);
};

}  // namespace tf::server::cluster_detail
