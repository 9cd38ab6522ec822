#include "server/accounts/identity.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "server/base/secrets.h"

namespace tf::server {

namespace {
constexpr std::size_t kSelectorDigits = 16, kTokenDigits = 48;
}

std::string selector_of(const std::string& token) {
    return token.substr(0, kSelectorDigits);
}

Identity::Issued Identity::create(std::string name, Store::Done saved) {
    std::string id = "p" + random_hex(8);
    if (name.empty()) name = "guest-" + id.substr(1, 4);
    auto player = std::make_shared<const Player>(Player{id, std::move(name)});
    std::string selector = random_hex(8), secret = random_hex(16);
    std::string hash = sha256_hex(secret);
    {
        std::lock_guard lock(m_);
        by_selector_[selector] = Entry{hash, player};
    }
    if (store_)
        store_->add_player(StoredPlayer{player->id, player->name, selector, hash, ""},
                           std::move(saved));
    else if (saved)
        saved(std::nullopt);
    return {player, selector + secret};
}

Identity::NewToken Identity::make_token(const Player& p) {
    std::string selector = random_hex(8), secret = random_hex(16);
    AccountWrite w;
    w.kind = AccountWrite::Kind::AddToken;
    w.player_id = p.id;
    w.selector = selector;
    w.secret_hash = sha256_hex(secret);
    return {selector + secret, std::move(w)};
}

void Identity::remember(const std::string& token, const Player& p) {
    if (token.size() != kTokenDigits) return;
    std::lock_guard lock(m_);
    by_selector_[selector_of(token)] =
        Entry{sha256_hex(token.substr(kSelectorDigits)), std::make_shared<const Player>(p)};
}

void Identity::rename(const Player& p) {
    auto player = std::make_shared<const Player>(p);
    std::lock_guard lock(m_);
    for (auto& [selector, e] : by_selector_)
        if (e.player->id == p.id) e.player = player;
}

void Identity::forget(const std::string& token) {
    std::lock_guard lock(m_);
    by_selector_.erase(selector_of(token));
}

void Identity::forget_player(const std::string& player_id, const std::string& keep_token) {
    const std::string keep = keep_token.empty() ? "" : selector_of(keep_token);
    std::lock_guard lock(m_);
    std::erase_if(by_selector_, [&](const auto& e) {
        return e.second.player->id == player_id && e.first != keep;
    });
}

void Identity::restore(const std::string& token, Store::Executor ex, Restored done) {
    auto answer = [ex, &done](std::shared_ptr<const Player> p) {
        Read<std::shared_ptr<const Player>> r;
        r.value = std::move(p);
        boost::asio::post(ex, [done = std::move(done), r = std::move(r)]() mutable { done(r); });
    };
    if (token.size() != kTokenDigits) return answer(nullptr);
    std::string selector = selector_of(token), hash = sha256_hex(token.substr(kSelectorDigits));
    {
        std::lock_guard lock(m_);
        auto it = by_selector_.find(selector);
        if (it != by_selector_.end())
            return answer(constant_time_equal(it->second.secret_hash, hash) ? it->second.player
                                                                            : nullptr);
    }
    if (!store_) return answer(nullptr);
    store_->read_player(
        selector, ex,
        [this, selector, hash, done = std::move(done)](Read<std::optional<StoredPlayer>> r) {
            Read<std::shared_ptr<const Player>> out;
            out.error = r.error;
            out.fault = r.fault;
            if (r.ok()) {
                const auto& stored = *r.value;
                if (!stored || !constant_time_equal(stored->secret_hash, hash)) {
                    out.value = nullptr;
                } else {
                    const bool account = !stored->username.empty();
                    auto player = std::make_shared<const Player>(
                        Player{stored->id, account ? stored->username : stored->name, account});
                    std::lock_guard lock(m_);
                    by_selector_.try_emplace(selector, Entry{stored->secret_hash, player});
                    out.value = by_selector_.at(selector).player;
                }
            }
            done(std::move(out));
        });
}

}  // namespace tf::server
