// Startup recovery: every unfinished game in the store is rebuilt by replaying its journal
// through the rules (Room::restore) and put back in the lobby. A game whose journal does not
// replay is reported loudly and quarantined in the store, never changed or half-loaded.
#pragma once

namespace tf::server {

struct Hub;

// False when the store cannot be read at all (the server should not start).
bool recover_games(Hub& hub);

}  // namespace tf::server
