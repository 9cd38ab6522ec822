#include "record.h"

#include <nlohmann/json.hpp>

#include "position.h"

namespace tf {

Expected<Replay> replay_record(const Json& j) {
    auto notrec = [](const std::string& m) { return RuleError{ErrorCode::BadFormat, m}; };
    if (!j.is_object()) return notrec("a record is a JSON object with variant, setup and turns");
    auto variant = variant_from_json(j.contains("variant") ? j.at("variant") : Json(nullptr));
    if (!variant) return variant.error();
    const Json* turns = nullptr;
    if (j.contains("turns") && !j.at("turns").is_null()) {
        if (!j.at("turns").is_array()) return notrec("record.turns must be an array of turns");
        turns = &j.at("turns");
    }
    Replay r{Game(*variant), Record{*variant, {}, {}, {}}, 0, std::nullopt, std::nullopt, -1};
    if (j.contains("position")) {
        // A record from a position (docs/RULES.md §9.1): no setups; the variant must agree.
        if (!j.at("position").is_string()) return notrec("record.position must be a string");
        auto g = game_from_position(j.at("position").get<std::string>());
        if (!g) return g.error();
        if (!(g->variant() == *variant))
            return notrec("record.position is of another variant than record.variant");
        r.game = std::move(*g);
        r.record.position = *position_string(r.game);
    } else {
        if (!j.contains("setup") || !j.at("setup").is_object() ||
            !j.at("setup").contains("silver") || !j.at("setup").contains("bronze"))
            return notrec("record.setup must be an object with silver and bronze setups");
        for (Side s : {Side::Silver, Side::Bronze}) {
            auto setup = setup_from_json(j.at("setup").at(std::string(side_name(s))));
            std::optional<RuleError> e;
            if (!setup)
                e = setup.error();
            else
                e = r.game.apply_setup(s, *setup);
            if (e) {
                r.error = std::move(e);
                r.error_setup = s;
                return r;
            }
            (s == Side::Silver ? r.record.silver : r.record.bronze) = *setup;
        }
    }
    if (!turns) return r;
    for (size_t i = 0; i < turns->size(); ++i) {
        auto t = turn_from_json((*turns)[i]);
        std::optional<RuleError> e;
        if (!t)
            e = t.error();
        else
            e = r.game.apply_turn(*t);
        if (e) {
            r.error = std::move(e);
            r.error_turn = int(i);
            return r;
        }
        r.record.turns.push_back(std::move(*t));
        ++r.applied;
    }
    return r;
}

Game start_game(const Record& r) {
    if (r.position) return *game_from_position(*r.position);
    Game g(r.variant);
    g.apply_setup(Side::Silver, r.silver);
    g.apply_setup(Side::Bronze, r.bronze);
    return g;
}

Json replay_summary(const Replay& r) {
    Json out{{"applied", r.applied}};
    if (!r.error) {
        out["error"] = nullptr;
    } else if (r.error_setup) {
        out["error"] = Json{{"setup", side_name(*r.error_setup)},
                            {"code", error_code_name(r.error->code)},
                            {"message", r.error->message}};
    } else {
        out["error"] = Json{{"turn", r.error_turn},
                            {"code", error_code_name(r.error->code)},
                            {"message", r.error->message}};
    }
    out.update(result_to_json(r.game));
    return out;
}

}  // namespace tf
