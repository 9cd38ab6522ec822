#include "server/identity.h"

#include <spdlog/spdlog.h>

#include <sys/random.h>

#include <boost/asio/post.hpp>
#include <stdexcept>

namespace tf::server {

std::string random_hex(std::size_t bytes) {
    std::string raw(bytes, '\0');
    std::size_t got = 0;
    while (got < bytes) {
        ssize_t r = getrandom(raw.data() + got, bytes - got, 0);
        if (r < 0) throw std::runtime_error("getrandom failed");
        got += std::size_t(r);
    }
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

namespace {
bool constant_time_equal(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}
}  // namespace

Identity::Issued Identity::create(std::string name) {
    std::string id = "p" + random_hex(8);
    if (name.empty()) name = "guest-" + id.substr(1, 4);
    auto player = std::make_shared<const Player>(Player{id, std::move(name)});
    std::string selector = random_hex(8), secret = random_hex(16);
    if (store_) store_->add_player(StoredPlayer{player->id, player->name, selector, secret});
    std::lock_guard lock(m_);
    by_selector_[selector] = Entry{secret, player};
    return {player, selector + secret};
}

void Identity::restore(const std::string& token, Store::Executor ex, Restored done) {
    auto answer = [ex, &done](std::shared_ptr<const Player> p) {
        Read<std::shared_ptr<const Player>> r;
        r.value = std::move(p);
        boost::asio::post(ex, [done = std::move(done), r = std::move(r)]() mutable { done(r); });
    };
    if (token.size() != 48) return answer(nullptr);
    std::string selector = token.substr(0, 16), secret = token.substr(16);
    {
        std::lock_guard lock(m_);
        auto it = by_selector_.find(selector);
        if (it != by_selector_.end())
            return answer(constant_time_equal(it->second.secret, secret) ? it->second.player
                                                                         : nullptr);
    }
    if (!store_) return answer(nullptr);
    store_->read_player(
        selector, ex,
        [this, selector, secret, done = std::move(done)](Read<std::optional<StoredPlayer>> r) {
            Read<std::shared_ptr<const Player>> out;
            out.error = r.error;
            out.fault = r.fault;
            if (r.ok()) {
                const auto& stored = *r.value;
                if (!stored || !constant_time_equal(stored->secret, secret)) {
                    out.value = nullptr;
                } else {
                    auto player = std::make_shared<const Player>(Player{stored->id, stored->name});
                    std::lock_guard lock(m_);
                    by_selector_.try_emplace(selector, Entry{stored->secret, player});
                    out.value = by_selector_.at(selector).player;
                }
            }
            done(std::move(out));
        });
}

}  // namespace tf::server
