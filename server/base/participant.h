// What a room or the lobby needs of a connection: a way to hand it a serialized message.
// Implemented by Session; tests of the room logic can implement it with a fake.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tf::server {

// A message serialized once and shared by every recipient of a broadcast.
using Msg = std::shared_ptr<const std::string>;

class Participant {
  public:
    virtual ~Participant() = default;
    // Thread-safe; never blocks. A participant whose queue is full disconnects itself.
    virtual void deliver(Msg m) = 0;
    // Several messages in order (a room operation's output for this recipient, such as an ack
    // and its event): a connection queues them in one handler and writes them together at once.
    virtual void deliver_all(std::vector<Msg> ms) {
        for (auto& m : ms) deliver(std::move(m));
    }
    // Thread-safe: the game `code` this participant watches moved to another node, whose
    // events this one can no longer pass on (cluster mode, server/cluster/cluster.h): a connection
    // closes (the client reconnects and watches again, reaching the new owner).
    virtual void moved(const std::string& code) { (void)code; }
};

struct Player {
    std::string id;
    std::string name;      // an account's username, or a guest's chosen name
    bool account = false;  // a registered account (may play rated games)
    bool bot = false;      // an account marked bot (PROTOCOL.md "Bot accounts")
};

}  // namespace tf::server
