#include "server/net/conn_limit.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "server/base/metrics.h"

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

std::string client_key(const ip::address& a) {
    if (a.is_v6() && !a.to_v6().is_v4_mapped()) {
        auto bytes = a.to_v6().to_bytes();
        for (std::size_t i = 8; i < bytes.size(); ++i) bytes[i] = 0;
        return ip::address_v6(bytes).to_string() + "/64";
    }
    return a.is_v4() ? a.to_string() : ip::make_address_v4(ip::v4_mapped, a.to_v6()).to_string();
}

std::string client_key(const std::string& address) {
    boost::system::error_code ec;
    auto a = ip::make_address(address, ec);
    return ec ? address : client_key(a);
}

std::optional<ConnLimiter::Slot> ConnLimiter::acquire(const ip::address& peer, bool per_address,
                                                      Refusal* why) {
    const int max = max_, max_total = max_total_;
    std::lock_guard lock(m_);
    if (max_total > 0 && total_ >= max_total) {
        refused_locked(peer, Refusal::Full, total_);
        if (why) *why = Refusal::Full;
        return std::nullopt;
    }
    if (max <= 0 || !per_address) {
        ++total_;
        return Slot(this, nullptr);
    }
    auto it = open_.try_emplace(key(peer), 0).first;
    if (it->second >= max) {
        refused_locked(peer, Refusal::Address, it->second);
        if (why) *why = Refusal::Address;
        return std::nullopt;
    }
    ++it->second;
    ++total_;
    return Slot(this, &*it);
}

void ConnLimiter::refused_locked(const ip::address& peer, Refusal why, int held) {
    if (why == Refusal::Full)
        ++metrics().connections_refused_full;
    else
        ++metrics().connections_refused_address;
    auto now = std::chrono::steady_clock::now();
    if (now - last_warning_ < std::chrono::seconds(1)) {
        ++unlogged_;
        return;
    }
    if (why == Refusal::Full)
        spdlog::warn(
            "connection from {} refused: the server holds {} connections (--max-connections); "
            "{} other refusals since the last such line",
            peer.to_string(), held, unlogged_);
    else
        spdlog::warn(
            "connection from {} refused: {} connections open from that address "
            "(--max-connections-per-ip); {} other refusals since the last such line",
            peer.to_string(), held, unlogged_);
    last_warning_ = now;
    unlogged_ = 0;
}

int ConnLimiter::count(const ip::address& peer) {
    std::lock_guard lock(m_);
    auto it = open_.find(key(peer));
    return it == open_.end() ? 0 : it->second;
}

int ConnLimiter::total() {
    std::lock_guard lock(m_);
    return total_;
}

bool ConnLimiter::Slot::rekey(const ip::address& client) {
    if (!lim_) return true;
    const int max = lim_->max_;
    std::lock_guard lock(lim_->m_);
    if (max <= 0) return true;
    const ip::address k = key(client);
    if (entry_ && entry_->first == k) return true;
    auto it = lim_->open_.try_emplace(k, 0).first;
    if (it->second >= max) {
        lim_->refused_locked(client, Refusal::Address, max);
        return false;
    }
    ++it->second;
    if (entry_ && --entry_->second == 0) {
        const ip::address old = entry_->first;
        lim_->open_.erase(old);
    }
    entry_ = &*it;
    return true;
}

void ConnLimiter::Slot::release() {
    if (!lim_) return;
    std::lock_guard lock(lim_->m_);
    --lim_->total_;
    if (entry_ && --entry_->second == 0) {
        const ip::address k = entry_->first;  // not a reference into the node being erased
        lim_->open_.erase(k);
    }
    lim_ = nullptr;
    entry_ = nullptr;
}

ConnLimiter& conn_limiter(int max_per_ip, int max_total) {
    static ConnLimiter* const process = new ConnLimiter();
    process->set_max(max_per_ip);
    process->set_max_total(max_total);
    return *process;
}

int default_max_connections(long nofile) {
    if (nofile <= 0) return 0;
    const long reserve = std::max<long>(64, nofile / 16);
    return int(std::clamp<long>(nofile - reserve, 16, 1 << 30));
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
