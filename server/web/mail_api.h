// The e-mail API on the HTTP port (proto/PROTOCOL.md "E-mail"): an account's address and what
// it wants mailed (GET/POST /api/account/mail, with the player's token), and the two links the
// mails carry: /api/mail/verify?token=T (the address is the account's) and
// /api/mail/unsubscribe?token=T (GET: a page with a button; POST, also RFC 8058's one-click:
// no more mail). Runs on the social thread (server/social/social_service.h).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "server/web/social_api.h"

namespace tf::server {

// True for /api/account/mail and /api/mail/...
bool is_mail_target(const std::string& path);

void mail_api(SocialService* svc, bool post, const std::string& path,
              const std::map<std::string, std::string>& query, const std::string& body,
              const SocialReader& reader, Store::Executor ex,
              std::function<void(ApiResponse)> done);

}  // namespace tf::server
