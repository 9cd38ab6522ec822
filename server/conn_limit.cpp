#include "server/conn_limit.h"

#include <spdlog/spdlog.h>

#include <array>

namespace tf::server {

namespace ip = boost::asio::ip;

ip::address ConnLimiter::key(const ip::address& a) {
    if (a.is_v4()) return a;
    auto v6 = a.to_v6();
    if (v6.is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, v6);
    auto bytes = v6.to_bytes();
    for (std::size_t i = 8; i < bytes.size(); ++i) bytes[i] = 0;  // the /64 prefix
    return ip::address_v6(bytes);
}

std::optional<ConnLimiter::Slot> ConnLimiter::acquire(const ip::address& peer) {
    const int max = max_;
    if (max <= 0) return Slot();
    const ip::address k = key(peer);
    std::lock_guard lock(m_);
    auto it = open_.try_emplace(k, 0).first;
    if (it->second < max) {
        ++it->second;
        return Slot(this, &*it);
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_warning_ >= std::chrono::seconds(1)) {
        spdlog::warn(
            "connection from {} refused: {} connections open from that address "
            "(--max-connections-per-ip); {} other refusals since the last such line",
            peer.to_string(), it->second, unlogged_);
        last_warning_ = now;
        unlogged_ = 0;
    } else {
        ++unlogged_;
    }
    return std::nullopt;
}

int ConnLimiter::count(const ip::address& peer) {
    std::lock_guard lock(m_);
    auto it = open_.find(key(peer));
    return it == open_.end() ? 0 : it->second;
}

void ConnLimiter::Slot::release() {
    if (!lim_) return;
    std::lock_guard lock(lim_->m_);
    if (--entry_->second == 0) {
        const ip::address k = entry_->first;  // not a reference into the node being erased
        lim_->open_.erase(k);
    }
    lim_ = nullptr;
    entry_ = nullptr;
}

ConnLimiter& conn_limiter(int max_per_ip) {
    static ConnLimiter* const process = new ConnLimiter();
    process->set_max(max_per_ip);
    return *process;
}

void refuse_connection(ip::tcp::socket& s, std::string_view reply) {
    boost::system::error_code ec;
    s.non_blocking(true, ec);
    std::array<char, 4096> sink;
    for (int i = 0; i < 4 && !ec; ++i)
        if (s.read_some(boost::asio::buffer(sink), ec) < sink.size()) break;
    ec.clear();
    s.write_some(boost::asio::buffer(reply.data(), reply.size()), ec);
    s.shutdown(ip::tcp::socket::shutdown_both, ec);
    s.close(ec);
}

}  // namespace tf::server
