#include "server/room/room_notices.h"

#include "common/json.h"

namespace tf::server::notices {

nlohmann::json player(const std::optional<Player>& p) {
    return p ? nlohmann::json{{"id", p->id}, {"name", p->name}} : nlohmann::json(nullptr);
}

std::string challenge(const std::string& code, const RoomParams& params, const Player& from) {
    nlohmann::json n = {{"game", code},
                        {"from", player(from)},
                        {"variant", to_json(params.variant)},
                        {"time_control", params.time_control ? proto::to_json(*params.time_control)
                                                             : nlohmann::json(nullptr)},
                        {"rated", params.rated},
                        {"side", side_name(~params.creator_side)}};
    if (from.bot) n["from"]["bot"] = true;
    return n.dump();
}

std::string challenge_answer(const std::string& code, const RoomParams& params,
                             nlohmann::json extra) {
    extra["game"] = code;
    extra["by"] = {{"id", params.invitee_id}, {"name", params.invitee_name}};
    return extra.dump();
}

std::string your_turn(const std::string& code, const std::optional<Player>& opponent,
                      std::int64_t move_by) {
    return nlohmann::json{{"game", code}, {"opponent", player(opponent)}, {"move_by", move_by}}
        .dump();
}

std::string game_over(const std::string& code, const proto::Result& result,
                      const std::optional<Player>& opponent) {
    return nlohmann::json{{"game", code},
                          {"result", nlohmann::json::parse(proto::to_text(result))},
                          {"opponent", player(opponent)}}
        .dump();
}

}  // namespace tf::server::notices
