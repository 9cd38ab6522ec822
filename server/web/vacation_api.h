// The vacation API on the HTTP port (proto/PROTOCOL.md "Vacation"): GET /api/vacation says the
// account's vacation and what is left of this year's; POST {"on": true|false} starts or ends
// it. Runs on the social thread (server/social/social_service.h); the node's rooms hear of the
// change at once (Vacations::poll_now), the other nodes' at their next read.
#pragma once

#include <functional>
#include <string>

#include "server/web/social_api.h"

namespace tf::server {

void vacation_api(SocialService& svc, bool post, const std::string& body, const std::string& me,
                  Store::Executor ex, std::function<void(ApiResponse)> done);

}  // namespace tf::server
