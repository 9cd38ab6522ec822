#pragma once

#include <functional>

namespace tf::server {

// One operation's deliveries, made on this thread while a DeliveryBatch lives: a participant
// that sends messages on (a node's stand-ins, which merge the same message for many
// connections of another node into one) holds them until the batch ends instead of guessing
// when the operation is over. Batches nest; the outermost one's end runs what was deferred.
class DeliveryBatch {
  public:
    DeliveryBatch();
    ~DeliveryBatch();
    DeliveryBatch(const DeliveryBatch&) = delete;
    DeliveryBatch& operator=(const DeliveryBatch&) = delete;

    // Runs `fn` when this thread's outermost batch ends, once per `key`. False when no batch
    // is open on this thread: the caller goes on at once.
    static bool defer(const void* key, std::function<void()> fn);
};

}  // namespace tf::server
