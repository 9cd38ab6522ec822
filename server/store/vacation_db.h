// The vacation table of the social store (schema 9; PROTOCOL.md "Vacation"), with `budget_ms`
// of vacation a year. On SocialDb's connection; blocking, one thread at a time; failures throw
// StoreError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/store/side_db.h"

namespace tf::server {

// An account's vacation (PROTOCOL.md "Vacation"): a budget of time a calendar year (UTC) during
// which its correspondence clocks stand on its move.
struct VacationState {
    bool on = false;
    std::int64_t since_ms = 0;  // on: when it began
    std::int64_t used_ms = 0;   // of this year's budget, the running vacation's time included
    std::int64_t left_ms = 0;   // what is left of it
};

class VacationDb {
  public:
    explicit VacationDb(SideDb& db) : db_(&db) {}

    VacationState vacation(const std::string& player_id, std::int64_t now_ms,
                           std::int64_t budget_ms);
    // Starts (`on`) or ends the player's vacation at `now_ms`; the state after. Nullopt: no time
    // left this year to start one. Starting a vacation already on (or ending one that is not)
    // changes nothing.
    std::optional<VacationState> set_vacation(const std::string& player_id, bool on,
                                              std::int64_t now_ms, std::int64_t budget_ms);
    // The players on vacation at `now_ms`, sorted, once those whose budget ran out are back (any
    // node may do it: the end is written once).
    std::vector<std::string> vacationers(std::int64_t now_ms, std::int64_t budget_ms);

  private:
    SideDb* db_;
};

}  // namespace tf::server
