// Open connections per client address (--max-connections-per-ip), counted over the HTTP /
// WebSocket and the TCP listener together. Every accepted socket takes a Slot before its session
// starts; the session holds the slot as a member, so the place is given back when the session
// object goes, whichever way the connection ended. IPv6 clients count per /64 (one subscriber's
// prefix); an IPv4-mapped IPv6 address counts as the IPv4 address.
#pragma once

#include <atomic>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

namespace tf::server {

class ConnLimiter {
    using Map = std::map<boost::asio::ip::address, int>;

  public:
    // 0: no limit.
    explicit ConnLimiter(int max_per_ip = 0) : max_(max_per_ip) {}
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

      private:
        friend class ConnLimiter;
        Slot(ConnLimiter* lim, Map::value_type* entry) : lim_(lim), entry_(entry) {}
        void release();
        ConnLimiter* lim_ = nullptr;
        Map::value_type* entry_ = nullptr;  // map nodes never move
    };

    // A slot for a new connection from `peer`, or nothing when that address already holds the
    // maximum (the refusal is logged as a warning, at most one line per second).
    std::optional<Slot> acquire(const boost::asio::ip::address& peer);
    // Open connections counted for `peer`'s address (or prefix).
    int count(const boost::asio::ip::address& peer);
    int max() const { return max_; }
    void set_max(int max_per_ip) { max_ = max_per_ip; }

  private:
    static boost::asio::ip::address key(const boost::asio::ip::address& a);
    std::atomic<int> max_;
    std::mutex m_;
    Map open_;
    std::chrono::steady_clock::time_point last_warning_{};
    std::uint64_t unlogged_ = 0;  // refusals since the last warning line
};

// The process's limiter, set to `max_per_ip` (0: no limit) by the Hub at startup. Never destroyed:
// the last sessions may end while the io_context is destroyed, after the Hub.
ConnLimiter& conn_limiter(int max_per_ip);

// Refuses an accepted socket without a session: reads what the client already sent (so closing
// does not reset the connection before it reads the answer, in the common case), writes `reply`
// once without blocking, and closes.
void refuse_connection(boost::asio::ip::tcp::socket& s, std::string_view reply);

}  // namespace tf::server
