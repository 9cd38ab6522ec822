// The /metrics page (Prometheus text format 0.0.4): the process's counters (server/base/metrics.h)
// and the node's state read from its Hub (connections, rooms, the store, the cluster's own).
#pragma once

#include <string>

namespace tf::server {

struct Hub;

std::string render_metrics(Hub& hub);

}  // namespace tf::server
