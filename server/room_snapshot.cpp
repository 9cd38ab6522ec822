// The room's views of itself: snapshot for (re)joining clients, lobby listing, players, clocks.
#include <cassert>

#include "common/json.h"
#include "server/room.h"

namespace tf::server {

using nlohmann::json;

// {"id","name","away"}: `away` is null while the seat has a connection, else the instants
// (server epoch ms) from which the opponent may claim the win and when it is awarded.
json Room::players_json(TimePoint now) const {
    json j = json::object();
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto& seat = seats_[idx(s)];
        if (!seat) {
            j[std::string(side_name(s))] = nullptr;
            continue;
        }
        const auto& away = away_since_[idx(s)];
        j[std::string(side_name(s))] = {
            {"id", seat->id},
            {"name", seat->name},
            {"away", away ? json{{"claim_at", epoch_ms(*away + grace_, now)},
                                 {"award_at", epoch_ms(*away + grace_ + award_, now)}}
                          : json(nullptr)}};
    }
    return j;
}

json Room::clocks_json(TimePoint now) const {
    return clock_ ? clock_->to_json(now) : json(nullptr);
}

// The rules library's result; an aborted game has no winner and no reason from the rules.
json Room::result_json() const {
    json r = result_to_json(game_);
    if (status_ == Status::Aborted) {
        r["over"] = true;
        r["reason"] = "aborted";
        r["winner"] = nullptr;
        r["to_move"] = nullptr;
    }
    return r;
}

int Room::spectators() const {
    assert(spectators_ == scan_spectators());
    return spectators_;
}

int Room::scan_spectators() const {
    int n = 0;
    for (auto& [p, sub] : subs_)
        if (!seat_of(sub.player_id)) ++n;
    return n;
}

json Room::lobby_entry() const {
    const auto& creator = seats_[idx(params_.creator_side)];
    return {{"code", code_},
            {"variant", to_json(params_.variant)},
            {"time_control",
             params_.time_control ? proto::to_json(*params_.time_control) : json(nullptr)},
            {"creator", {{"id", creator->id}, {"name", creator->name}}},
            {"creator_side", side_name(params_.creator_side)}};
}

proto::SnapshotMsg Room::snapshot() const {
    auto now = SteadyClock::now();
    json turns = json::array();
    for (const Turn& t : turns_) turns.push_back(to_json(t));
    json record = {{"variant", to_json(params_.variant)},
                   {"time_control",
                    params_.time_control ? proto::to_json(*params_.time_control) : json(nullptr)},
                   {"setup",
                    {{"silver", setups_[0] ? to_json(*setups_[0]) : json(nullptr)},
                     {"bronze", setups_[1] ? to_json(*setups_[1]) : json(nullptr)}}},
                   {"turns", std::move(turns)}};
    return proto::SnapshotMsg{code_,
                              version_,
                              std::string(proto::status_name(status_)),
                              state_to_json(game_),
                              std::move(record),
                              players_json(now),
                              clocks_json(now),
                              spectators(),
                              draw_offer_ ? json(side_name(*draw_offer_)) : json(nullptr)};
}

}  // namespace tf::server
