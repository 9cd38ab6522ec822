#include "json.h"

#include <nlohmann/json.hpp>

namespace tf {

namespace {

RuleError bad(const std::string& where, const std::string& what) {
    return RuleError{ErrorCode::BadFormat, where + ": " + what};
}

// Coordinates beyond this are rejected as malformed; anything off the board is illegal anyway.
constexpr long long kCoordLimit = 1000000;

// Appends a shallow rendering of j to out, at most about `room` characters: nested values
// beyond two levels print as [...] / {...}, so hostile nesting costs nothing.
void render_brief(const Json& j, std::string& out, int depth) {
    if (out.size() > 48) return;
    if (j.is_array() || j.is_object()) {
        if (depth >= 2 || j.empty()) {
            out += j.is_array() ? (j.empty() ? "[]" : "[...]") : (j.empty() ? "{}" : "{...}");
            return;
        }
        out += j.is_array() ? '[' : '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end() && out.size() <= 48; ++it) {
            if (!first) out += ',';
            first = false;
            if (j.is_object())
                out += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ':';
            render_brief(*it, out, depth + 1);
        }
        out += j.is_array() ? ']' : '}';
        return;
    }
    out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A short quotation of a client's value for an error message: shallow, invalid UTF-8 replaced,
// cut on a character boundary.
std::string brief(const Json& j) {
    std::string s;
    render_brief(j, s, 0);
    if (s.size() > 40) {
        size_t cut = 37;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        s = s.substr(0, cut) + "...";
    }
    return s;
}

bool is_absent(const Json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null();
}

}  // namespace

Expected<Cell> cell_from_json(const Json& j, const std::string& where) {
    if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer())
        return bad(where, "a cell is an array of two integers [x, y], got " + brief(j));
    long long v[2];
    for (int i = 0; i < 2; ++i) {
        if (j[i].is_number_unsigned() &&
            j[i].get<unsigned long long>() > (unsigned long long)kCoordLimit)
            return bad(where, "coordinate " + brief(j[i]) + " is far off the board");
        v[i] = j[i].get<long long>();
        if (v[i] > kCoordLimit || v[i] < -kCoordLimit)
            return bad(where, "coordinate " + brief(j[i]) + " is far off the board");
    }
    return Cell{int(v[0]), int(v[1])};
}

Expected<Variant> variant_from_json(const Json& j) {
    Variant v;
    if (j.is_null()) return v;
    if (!j.is_object()) return bad("variant", "expected an object, got " + brief(j));
    struct Field {
        const char* key;
        int* out;
    } fields[] = {
        {"size", &v.size}, {"elephants", &v.elephants}, {"burnt", &v.burnt}, {"quiet", &v.quiet}};
    for (const Field& f : fields) {
        if (is_absent(j, f.key)) continue;
        const Json& x = j.at(f.key);
        if (!x.is_number_integer() || x.get<long long>() > 1000000 ||
            x.get<long long>() < -1000000 ||
            (x.is_number_unsigned() && x.get<unsigned long long>() > 1000000))
            return bad(std::string("variant.") + f.key, "expected an integer, got " + brief(x));
        *f.out = x.get<int>();
    }
    if (auto e = check_variant(v)) return RuleError{ErrorCode::BadVariant, "variant: " + *e};
    return v;
}

Expected<Setup> setup_from_json(const Json& j) {
    if (!j.is_object()) return bad("setup", "expected an object, got " + brief(j));
    Setup s;
    for (const char* key : {"elephants", "guardians"}) {
        auto it = j.find(key);
        if (it == j.end() || !it->is_array())
            return bad(std::string("setup.") + key, "expected an array of cells");
        if (it->size() > 64) return bad(std::string("setup.") + key, "too many cells");
        auto& out = std::string(key) == "elephants" ? s.elephants : s.guardians;
        for (size_t i = 0; i < it->size(); ++i) {
            auto c = cell_from_json((*it)[i],
                                    std::string("setup.") + key + "[" + std::to_string(i) + "]");
            if (!c) return c.error();
            out.push_back(*c);
        }
    }
    return s;
}

Expected<Turn> turn_from_json(const Json& j) {
    if (!j.is_object()) return bad("turn", "expected an object, got " + brief(j));
    Turn t;
    if (!is_absent(j, "elephant")) {
        const Json& e = j.at("elephant");
        if (!e.is_object()) return bad("elephant", "expected an object or null, got " + brief(e));
        ElephantMove m;
        if (!e.contains("from")) return bad("elephant.from", "missing");
        auto from = cell_from_json(e.at("from"), "elephant.from");
        if (!from) return from.error();
        m.from = *from;
        if (!e.contains("path") || !e.at("path").is_array())
            return bad("elephant.path", "expected an array of cells");
        const Json& path = e.at("path");
        if (path.size() > 1000)
            return bad("elephant.path", "has " + std::to_string(path.size()) + " cells");
        for (size_t i = 0; i < path.size(); ++i) {
            auto c = cell_from_json(path[i], "elephant.path[" + std::to_string(i) + "]");
            if (!c) return c.error();
            m.path.push_back(*c);
        }
        if (!is_absent(e, "facing")) {
            const Json& f = e.at("facing");
            std::optional<Dir> d;
            if (f.is_string()) d = parse_dir(f.get_ref<const std::string&>());
            if (!d)
                return bad("elephant.facing",
                           "expected \"N\", \"E\", \"S\" or \"W\", got " + brief(f));
            m.facing = d;
        }
        t.elephant = std::move(m);
    }
    if (!is_absent(j, "burnt")) {
        auto c = cell_from_json(j.at("burnt"), "burnt");
        if (!c) return c.error();
        t.burnt = *c;
    }
    if (!is_absent(j, "guardians")) {
        const Json& gs = j.at("guardians");
        if (!gs.is_array()) return bad("guardians", "expected an array, got " + brief(gs));
        if (gs.size() > 16)
            return bad("guardians", "has " + std::to_string(gs.size()) + " entries");
        for (size_t i = 0; i < gs.size(); ++i) {
            const std::string where = "guardians[" + std::to_string(i) + "]";
            const Json& g = gs[i];
            if (!g.is_object()) return bad(where, "expected an object, got " + brief(g));
            GuardianMove gm;
            if (!g.contains("from")) return bad(where + ".from", "missing");
            auto from = cell_from_json(g.at("from"), where + ".from");
            if (!from) return from.error();
            gm.from = *from;
            std::optional<Rot> r;
            if (g.contains("dir") && g.at("dir").is_string())
                r = parse_rot(g.at("dir").get_ref<const std::string&>());
            if (!r) return bad(where + ".dir", "expected \"cw\" or \"ccw\"");
            gm.dir = *r;
            if (!g.contains("steps") || !g.at("steps").is_number_integer())
                return bad(where + ".steps", "expected an integer >= 1");
            const Json& st = g.at("steps");
            // An integer >= 1 (nlohmann reads non-negative literals, 0 included, as unsigned).
            const bool in_range =
                st.is_number_unsigned()
                    ? st.get<unsigned long long>() >= 1 &&
                          st.get<unsigned long long>() <= 1000000000ULL
                    : st.get<long long>() >= 1 && st.get<long long>() <= 1000000000LL;
            if (!in_range)
                return bad(where + ".steps", "expected an integer >= 1, got " + brief(st));
            gm.steps = st.get<long long>();
            t.guardians.push_back(gm);
        }
    }
    return t;
}

Json to_json(Cell c) {
    return Json::array({c.x, c.y});
}

Json to_json(const Variant& v) {
    return Json{
        {"size", v.size}, {"elephants", v.elephants}, {"burnt", v.burnt}, {"quiet", v.quiet}};
}

Json to_json(const Setup& s) {
    Json e = Json::array(), g = Json::array();
    for (Cell c : s.elephants) e.push_back(to_json(c));
    for (Cell c : s.guardians) g.push_back(to_json(c));
    return Json{{"elephants", e}, {"guardians", g}};
}

Json to_json(const ElephantMove& m) {
    Json path = Json::array();
    for (Cell c : m.path) path.push_back(to_json(c));
    Json j{{"from", to_json(m.from)}, {"path", path}};
    if (m.facing) j["facing"] = std::string(1, dir_char(*m.facing));
    return j;
}

Json to_json(const Turn& t) {
    Json gs = Json::array();
    for (const GuardianMove& g : t.guardians)
        gs.push_back(Json{{"from", to_json(g.from)}, {"dir", rot_name(g.dir)}, {"steps", g.steps}});
    return Json{{"elephant", t.elephant ? to_json(*t.elephant) : Json(nullptr)},
                {"burnt", t.burnt ? to_json(*t.burnt) : Json(nullptr)},
                {"guardians", gs}};
}

Json to_json(const Record& r) {
    Json turns = Json::array();
    for (const Turn& t : r.turns) turns.push_back(to_json(t));
    if (r.position)
        return Json{{"variant", to_json(r.variant)}, {"position", *r.position}, {"turns", turns}};
    return Json{{"variant", to_json(r.variant)},
                {"setup", {{"silver", to_json(r.silver)}, {"bronze", to_json(r.bronze)}}},
                {"turns", turns}};
}

namespace {

const char* phase_name(Phase p) {
    switch (p) {
        case Phase::SetupSilver:
            return "setup_silver";
        case Phase::SetupBronze:
            return "setup_bronze";
        case Phase::Play:
            return "play";
        case Phase::Over:
            return "over";
    }
    return "";
}

}  // namespace

Json result_to_json(const Game& g) {
    Json winner = nullptr;
    if (g.over()) winner = g.winner() ? Json(side_name(*g.winner())) : Json("draw");
    return Json{{"over", g.over()},
                {"reason", g.over() ? Json(end_reason_name(g.end_reason())) : Json(nullptr)},
                {"score", {{"silver", g.score(Side::Silver)}, {"bronze", g.score(Side::Bronze)}}},
                {"winner", winner},
                {"to_move", g.over() ? Json(nullptr) : Json(side_name(g.to_move()))}};
}

Json state_to_json(const Game& g) {
    Json j = result_to_json(g);
    j["variant"] = to_json(g.variant());
    j["phase"] = phase_name(g.phase());
    j["turns_played"] = g.turns_played();
    j["quiet_turns"] = g.quiet_turns();
    auto cells = [](const std::vector<Cell>& cs) {
        Json a = Json::array();
        for (Cell c : cs) a.push_back(to_json(c));
        return a;
    };
    j["trunks"] = cells(g.trunk_cells());
    j["burnt"] = cells(g.burnt_cells());
    j["crossings"] = cells(g.crossings());
    Json es = Json::array();
    for (const ElephantInfo& e : g.elephants())
        es.push_back(Json{{"side", side_name(e.side)},
                          {"cell", to_json(e.cell)},
                          {"facing", std::string(1, dir_char(e.facing))}});
    j["elephants"] = es;
    Json gs = Json::array();
    for (const GuardianInfo& gi : g.guardians())
        gs.push_back(Json{{"side", side_name(gi.side)}, {"cell", to_json(gi.cell)}});
    j["guardians"] = gs;
    Json players = Json::object();
    for (Side s : {Side::Silver, Side::Bronze}) {
        const SideStats& st = g.stats(s);
        players[std::string(side_name(s))] = Json{
            {"trunks", st.trunks}, {"spent", st.spent},       {"burnt_left", st.burnt_left},
            {"saved", st.saved},   {"captured", st.captured}, {"on_field", g.elephants_on_field(s)},
            {"score", g.score(s)}};
    }
    j["players"] = players;
    return j;
}

Expected<Game> game_from_json(const Json& j) {
    if (!j.is_object()) return bad("state", "expected an object");
    Snapshot s;
    auto variant = variant_from_json(j.contains("variant") ? j.at("variant") : Json(nullptr));
    if (!variant) return variant.error();
    s.variant = *variant;
    auto str = [&](const char* key) -> std::string {
        auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto integer = [&](const Json& o, const char* key, int& out) {
        auto it = o.find(key);
        if (it == o.end() || !it->is_number_integer()) return false;
        long long v = it->get<long long>();
        if (v < -1000000 || v > 1000000) return false;
        out = int(v);
        return true;
    };
    const std::string phase = str("phase");
    if (phase == "setup_silver")
        s.phase = Phase::SetupSilver;
    else if (phase == "setup_bronze")
        s.phase = Phase::SetupBronze;
    else if (phase == "play")
        s.phase = Phase::Play;
    else if (phase == "over")
        s.phase = Phase::Over;
    else
        return bad("state.phase", "expected setup_silver, setup_bronze, play or over");
    if (s.phase == Phase::Over) {
        const std::string reason = str("reason");
        for (EndReason r :
             {EndReason::Trunks, EndReason::Herd, EndReason::Quiet, EndReason::Resign,
              EndReason::Time, EndReason::Agreement, EndReason::Abandon, EndReason::Stalling})
            if (end_reason_name(r) == reason) s.reason = r;
        if (s.reason == EndReason::None) return bad("state.reason", "unknown end reason");
        if (s.reason == EndReason::Resign || s.reason == EndReason::Time ||
            s.reason == EndReason::Abandon) {
            auto w = parse_side(str("winner"));
            if (!w) return bad("state.winner", "expected silver or bronze");
            s.loser = ~*w;
        } else if (s.reason == EndReason::Stalling && str("winner") != "draw") {
            auto w = parse_side(str("winner"));  // the claimer's win, or a draw
            if (!w) return bad("state.winner", "expected silver, bronze or draw");
            s.loser = ~*w;
        }
    } else if (s.phase == Phase::Play) {
        auto side = parse_side(str("to_move"));
        if (!side) return bad("state.to_move", "expected silver or bronze");
        s.to_move = *side;
    } else {
        s.to_move = s.phase == Phase::SetupSilver ? Side::Silver : Side::Bronze;
    }
    if (!integer(j, "turns_played", s.turns_played) || !integer(j, "quiet_turns", s.quiet_turns))
        return bad("state", "turns_played and quiet_turns must be integers");
    auto cells = [&](const char* key, std::vector<Cell>& out) -> std::optional<RuleError> {
        auto it = j.find(key);
        if (it == j.end() || !it->is_array() || it->size() > 400)
            return bad(std::string("state.") + key, "expected an array of cells");
        for (size_t i = 0; i < it->size(); ++i) {
            auto c = cell_from_json((*it)[i],
                                    std::string("state.") + key + "[" + std::to_string(i) + "]");
            if (!c) return c.error();
            out.push_back(*c);
        }
        return std::nullopt;
    };
    if (auto e = cells("trunks", s.trunks)) return *e;
    if (auto e = cells("burnt", s.burnt)) return *e;
    for (const char* key : {"elephants", "guardians"}) {
        auto it = j.find(key);
        if (it == j.end() || !it->is_array() || it->size() > 64)
            return bad(std::string("state.") + key, "expected an array");
        for (const Json& p : *it) {
            if (!p.is_object() || !p.contains("side") || !p.at("side").is_string() ||
                !p.contains("cell"))
                return bad(std::string("state.") + key, "each entry has side and cell");
            auto side = parse_side(p.at("side").get<std::string>());
            auto c = cell_from_json(p.at("cell"), std::string("state.") + key);
            if (!side) return bad(std::string("state.") + key, "side must be silver or bronze");
            if (!c) return c.error();
            if (std::string(key) == "guardians") {
                s.guardians.push_back({*side, *c});
                continue;
            }
            std::optional<Dir> f;
            if (p.contains("facing") && p.at("facing").is_string())
                f = parse_dir(p.at("facing").get<std::string>());
            if (!f) return bad("state.elephants", "facing must be N, E, S or W");
            s.elephants.push_back({*side, *c, *f});
        }
    }
    auto pl = j.find("players");
    if (pl == j.end() || !pl->is_object()) return bad("state.players", "expected an object");
    for (Side side : {Side::Silver, Side::Bronze}) {
        auto it = pl->find(std::string(side_name(side)));
        SideStats& st = s.stats[idx(side)];
        if (it == pl->end() || !it->is_object() || !integer(*it, "trunks", st.trunks) ||
            !integer(*it, "spent", st.spent) || !integer(*it, "burnt_left", st.burnt_left) ||
            !integer(*it, "saved", st.saved) || !integer(*it, "captured", st.captured))
            return bad("state.players",
                       "each side has integer trunks, spent, burnt_left, saved, captured");
    }
    return Game::from_snapshot(s);
}

Json moves_to_json(const Game& g) {
    MoveList ml;
    g.generate(ml);
    Json a = Json::array();
    for (const Move& m : ml) a.push_back(to_json(g.to_elephant_move(m)));
    return a;
}

}  // namespace tf
