// Open connections, per client address (--max-connections-per-ip) and in all
// (--max-connections, below the descriptor limit), counted over the HTTP / WebSocket and the TCP
// listener together. Every accepted socket takes a Slot before its session starts; the session
// holds the slot as a member, so the place is given back when the session object goes, whichever
// way the connection ended. IPv6 clients count per /64 (one subscriber's prefix); an IPv4-mapped
// IPv6 address counts as the IPv4 address. A connection from a trusted proxy is counted in the
// total at once and under its client's address once the proxy has said who that is
// (Slot::rekey: X-Forwarded-For, the PROXY protocol; server/net/client_address.h).
#pragma once

#include <atomic>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tf::server {

// The key a client is counted under: the IPv4 address, or the IPv6 /64 ("2001:db8:1:2::/64").
// The same key serves the login and open-game limits (server/accounts/login_limit.h,
// server/open_games.h).
std::string client_key(const boost::asio::ip::address& a);
// The same from an address's text; the text itself when it is not an address.
std::string client_key(const std::string& address);

class ConnLimiter {
    using Map = std::map<boost::asio::ip::address, int>;

  public:
    enum class Refusal { None, Address, Full };
    // 0: no limit.
    explicit ConnLimiter(int max_per_ip = 0, int max_total = 0)
        : max_(max_per_ip), max_total_(max_total) {}
    ConnLimiter(const ConnLimiter&) = delete;
    ConnLimiter& operator=(const ConnLimiter&) = delete;

    // One counted connection; 16 bytes in a session. Movable, gives its place back once.
    class Slot {
      public:
        Slot() = default;
        Slot(Slot&& o) noexcept
            : lim_(std::exchange(o.lim_, nullptr)), entry_(std::exchange(o.entry_, nullptr)) {}
        Slot& operator=(Slot&& o) noexcept {
            if (this != &o) {
                release();
                lim_ = std::exchange(o.lim_, nullptr);
                entry_ = std::exchange(o.entry_, nullptr);
            }
            return *this;
        }
        Slot(const Slot&) = delete;
        Slot& operator=(const Slot&) = delete;
        ~Slot() { release(); }
        // Counts this connection under `client` instead (a trusted proxy said who the client
        // is). False, and nothing changed, when that address holds the maximum already.
        bool rekey(const boost::asio::ip::address& client);

      private:
        friend class ConnLimiter;
        Slot(ConnLimiter* lim, Map::value_type* entry) : lim_(lim), entry_(entry) {}
        void release();
        ConnLimiter* lim_ = nullptr;
        Map::value_type* entry_ = nullptr;  // map nodes never move; null: not per address
    };

    // A slot for a new connection from `peer` (counted under peer's address unless
    // `per_address` is false), or nothing when that address already holds its maximum or the
    // server holds --max-connections (`why` says which; refusals are logged as warnings, at most
    // one line per second).
    std::optional<Slot> acquire(const boost::asio::ip::address& peer, bool per_address = true,
                                Refusal* why = nullptr);
    // Open connections counted for `peer`'s address (or prefix).
    int count(const boost::asio::ip::address& peer);
    int total();
    int max() const { return max_; }
    int max_total() const { return max_total_; }
    void set_max(int max_per_ip) { max_ = max_per_ip; }
    void set_max_total(int max_total) { max_total_ = max_total; }

  private:
    static boost::asio::ip::address key(const boost::asio::ip::address& a);
    void refused_locked(const boost::asio::ip::address& peer, Refusal why, int held);
    std::atomic<int> max_;
    std::atomic<int> max_total_;
    std::mutex m_;
    Map open_;
    int total_ = 0;
    std::chrono::steady_clock::time_point last_warning_{};
    std::uint64_t unlogged_ = 0;  // refusals since the last warning line
};

// The process's limiter, set to `max_per_ip` and `max_total` (0: no limit) by the Hub at
// startup. Never destroyed: the last sessions may end while the io_context is destroyed, after
// the Hub.
ConnLimiter& conn_limiter(int max_per_ip, int max_total);

// --max-connections when not given: the descriptor limit less a reserve for the store, the bus,
// log and static files (at least 64, a sixteenth of larger limits).
int default_max_connections(long nofile);

// Refuses an accepted socket without a session: reads what the client already sent (so closing
// does not reset the connection before it reads the answer, in the common case), writes `reply`
// once without blocking, and closes.
void refuse_connection(boost::asio::ip::tcp::socket& s, std::string_view reply);

}  // namespace tf::server
