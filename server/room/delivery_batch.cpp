#include "server/room/delivery_batch.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace tf::server {
namespace {

struct Open {
    int depth = 0;
    std::vector<std::pair<const void*, std::function<void()>>> deferred;
};
thread_local Open open_;

}  // namespace

DeliveryBatch::DeliveryBatch() {
    ++open_.depth;
}

DeliveryBatch::~DeliveryBatch() {
    if (--open_.depth > 0) return;
    auto deferred = std::exchange(open_.deferred, {});
    for (auto& [key, fn] : deferred) fn();
}

bool DeliveryBatch::defer(const void* key, std::function<void()> fn) {
    if (open_.depth == 0) return false;
    auto& d = open_.deferred;
    if (std::none_of(d.begin(), d.end(), [key](const auto& e) { return e.first == key; }))
        d.emplace_back(key, std::move(fn));
    return true;
}

}  // namespace tf::server
