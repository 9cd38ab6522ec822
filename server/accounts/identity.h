// Identities: player id, display name, account and session tokens (PROTOCOL.md "Accounts").
// A token is 48 hex digits: a 64-bit selector (the lookup key) followed by a 128-bit secret
// from the OS (getrandom). The store keeps the secret's SHA-256 only; a presented secret is
// hashed and compared in constant time. An account may hold several tokens (one per login);
// logging out revokes them. Thread-safe (one mutex); the cache only saves store lookups, the
// store is the truth.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/base/participant.h"
#include "server/store/store.h"

namespace tf::server {

class Identity {
  public:
    // Players are stored there (created ones queued, unknown tokens looked up); set once
    // before serving.
    void attach(Store* store) { store_ = store; }
    struct Issued {
        std::shared_ptr<const Player> player;
        std::string token;
    };
    // A new guest; without a name, "guest-" and four characters of its id (distinct names for
    // distinct visitors, as good as they need to be to tell them apart in a chat).
    // `saved` (on the store's thread) once its row is durable or its write failed.
    Issued create(std::string name, Store::Done saved = {});
    // The player the token belongs to, or nullptr for an unknown, forged or revoked token:
    // `done` runs on `ex` (a token this process has not seen is looked up in the store, off the
    // caller's thread); a Read error when the store could not be asked (the token may be good).
    using Restored = Store::Then<std::shared_ptr<const Player>>;
    void restore(const std::string& token, Store::Executor ex, Restored done);

    // A new token for `p` (a login). What the store must write first is in `write`; remember()
    // it once written.
    struct NewToken {
        std::string token;
        AccountWrite write;
    };
    NewToken make_token(const Player& p);
    void remember(const std::string& token, const Player& p);
    // The player `p` under every cached token of its id (a guest that registered).
    void rename(const Player& p);
    // Forgets cached tokens: one, or all of a player's but `keep` (selectors are the first 16
    // digits of a token).
    void forget(const std::string& token);
    void forget_player(const std::string& player_id, const std::string& keep_token = {});

  private:
    struct Entry {
        std::string secret_hash;
        std::shared_ptr<const Player> player;
    };
    Store* store_ = nullptr;
    std::mutex m_;
    std::unordered_map<std::string, Entry> by_selector_;
};

// A token's selector (its lookup half).
std::string selector_of(const std::string& token);

}  // namespace tf::server
