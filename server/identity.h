// Guest identities: player id, display name and session token.
// A token is 48 hex digits: a 64-bit selector (the lookup key) followed by a 128-bit secret
// from the OS (getrandom), compared in constant time. Thread-safe (one mutex).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/participant.h"
#include "server/store.h"

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
    Issued create(std::string name);
    // The player the token belongs to, or nullptr for an unknown or forged token: `done` runs
    // on `ex` (a token this process has not seen is looked up in the store, off the caller's
    // thread); a Read error when the store could not be asked (the token may be good).
    using Restored = Store::Then<std::shared_ptr<const Player>>;
    void restore(const std::string& token, Store::Executor ex, Restored done);

  private:
    struct Entry {
        std::string secret;
        std::shared_ptr<const Player> player;
    };
    Store* store_ = nullptr;
    std::mutex m_;
    std::unordered_map<std::string, Entry> by_selector_;
};

// n random bytes from the OS as lowercase hex.
std::string random_hex(std::size_t bytes);

}  // namespace tf::server
