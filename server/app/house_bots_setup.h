// The house bots (server/accounts/house_bots.h) made at the server's start: each level whose
// account is missing gets one, in the background; a store that cannot be read or written is
// asked again every few seconds. Several nodes starting together make each account once (the
// second registration finds the name taken and reads the first one's).
#pragma once

namespace tf::server {

struct Hub;

// Nothing without a store that keeps accounts (--store memory). A person's account that already
// has a level's name leaves that level without a house bot, with a warning in the log.
void make_house_bots(Hub& hub);

}  // namespace tf::server
