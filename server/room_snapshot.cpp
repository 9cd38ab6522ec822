// The room's views of itself: snapshot for (re)joining clients, lobby listing, players.
#include "common/json.h"
#include "server/room.h"

namespace tf::server {

using nlohmann::json;

json Room::players_json() const {
    json j = json::object();
    for (Side s : {Side::Silver, Side::Bronze}) {
        const auto& seat = seats_[idx(s)];
        j[std::string(side_name(s))] =
            seat ? json{{"id", seat->id}, {"name", seat->name}} : json(nullptr);
    }
    return j;
}

int Room::spectators() const {
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
    static const char* names[] = {"open", "playing", "over", "cancelled"};
    json turns = json::array();
    for (const Turn& t : turns_) turns.push_back(to_json(t));
    json record = {{"variant", to_json(params_.variant)},
                   {"setup",
                    {{"silver", setups_[0] ? to_json(*setups_[0]) : json(nullptr)},
                     {"bronze", setups_[1] ? to_json(*setups_[1]) : json(nullptr)}}},
                   {"turns", std::move(turns)}};
    return proto::SnapshotMsg{
        code_,          version_, names[int(status_)], state_to_json(game_), std::move(record),
        players_json(), nullptr,  spectators()};
}

}  // namespace tf::server
