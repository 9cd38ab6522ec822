// The client library's game mirror (client/lib/game_mirror.h) for the browser: the web client
// hands it every server message as text and reads the game back as JSON, so that it reads the
// server's messages with the same code as the terminal client, the bot and the tests.
//
// Same conventions as bindings.cpp: strings in are the caller's, strings out point into a buffer
// of this file valid until the next call here; mirrors live in a table of handles (> 0); nothing
// throws across the boundary.
#include <emscripten/emscripten.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "client/lib/game_mirror.h"
#include "common/json.h"
#include "proto/messages.h"

namespace {

using nlohmann::json;
using tf::client::GameMirror;

std::string g_mirror_out;
std::map<int, std::unique_ptr<GameMirror>> g_mirrors;
int g_next_mirror = 1;

const char* out(const json& j) {
    g_mirror_out = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return g_mirror_out.c_str();
}

json side_or_null(std::optional<tf::Side> s) {
    return s ? json(tf::side_name(*s)) : json(nullptr);
}

json parsed(const std::string& text) {
    return json::parse(text);
}

json rating_json(const tf::proto::RatingView& r) {
    return {{"rating", r.rating},
            {"deviation", r.deviation},
            {"games", r.games},
            {"provisional", r.provisional}};
}

// A rated game's changes as the `ratings` event carries them: {category, silver: {before,
// after: {rating, deviation, games, provisional}} | null, bronze: ...}.
json ratings_json(const tf::proto::RatingsEv& e) {
    json out = {{"category", e.category}};
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze}) {
        const auto& c = e.change[tf::idx(s)];
        out[std::string(tf::side_name(s))] =
            c ? json{{"before", c->before}, {"after", rating_json(c->after)}} : json(nullptr);
    }
    return out;
}

// Everything the mirror knows, in the shapes of the protocol (PROTOCOL.md): what the web client
// draws from.
json view(const GameMirror& m) {
    json seats = json::object();
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze}) {
        const auto& seat = m.seat(s);
        json v = nullptr;
        if (seat) {
            v = {{"id", seat->player.id},
                 {"name", seat->player.name},
                 {"away", nullptr},
                 {"rating", seat->rating ? rating_json(*seat->rating) : json(nullptr)}};
            if (seat->player.bot) v["bot"] = true;  // PROTOCOL.md "Bot accounts"
            if (seat->away)
                v["away"] = {{"claim_at", seat->away->claim_at},
                             {"award_at", seat->away->award_at}};
        }
        seats[std::string(tf::side_name(s))] = v;
    }
    json turns = json::array();
    for (const auto& t : m.turns()) {
        json caps = json::array();
        for (const auto& c : t.captures)
            caps.push_back({{"side", tf::side_name(c.side)}, {"cell", tf::to_json(c.cell)}});
        turns.push_back(
            {{"side", tf::side_name(t.side)}, {"turn", tf::to_json(t.turn)}, {"captures", caps}});
    }
    json clocks = nullptr;
    if (const auto& c = m.clocks())
        clocks = {{"silver_ms", c->silver_ms},
                  {"bronze_ms", c->bronze_ms},
                  {"running", side_or_null(c->running)},
                  {"at", c->at}};
    json chat = json::array();
    for (const auto& c : m.chat())
        chat.push_back(
            {{"from", {{"id", c.from.id}, {"name", c.from.name}}},
             {"text", c.text},
             {"room", c.room == tf::proto::ChatRoom::Spectators ? "spectators" : "players"}});
    json prefs = json::object(), takeback_turns = json::object();
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze}) {
        prefs[std::string(tf::side_name(s))] = {{"takeback", m.preferences(s).takeback},
                                                {"more_time", m.preferences(s).more_time}};
        takeback_turns[std::string(tf::side_name(s))] = m.takeback_turns(s);
    }
    // correspondence games: the sides whose players are on vacation now (PROTOCOL.md "Vacation")
    json vacation = json::array();
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze})
        if (m.on_vacation(s)) vacation.push_back(std::string(tf::side_name(s)));
    // arena games: the sides that went berserk (PROTOCOL.md "Tournaments" (Berserk))
    json berserk = json::array();
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze})
        if (m.berserk(s)) berserk.push_back(std::string(tf::side_name(s)));
    json setups = json::object();
    for (tf::Side s : {tf::Side::Silver, tf::Side::Bronze})
        setups[std::string(tf::side_name(s))] =
            m.setup(s) ? tf::to_json(*m.setup(s)) : json(nullptr);
    return {
        {"code", m.code()},
        {"version", m.version()},
        {"state_version", m.state_version()},
        {"status", tf::proto::status_name(m.status())},
        {"state", tf::state_to_json(m.game())},
        {"variant", tf::to_json(m.variant())},
        {"time_control", m.time_control() ? tf::proto::to_json(*m.time_control()) : json(nullptr)},
        {"my_side", side_or_null(m.my_side())},
        {"players", seats},
        {"clocks", clocks},
        {"draw_offer", side_or_null(m.draw_offer())},
        {"takeback_offer", side_or_null(m.takeback_offer())},
        {"stalling", side_or_null(m.stalling())},
        {"vacation", vacation},
        {"berserk", berserk},
        {"preferences", prefs},
        {"takebacks_on", m.takebacks_on()},
        {"takeback_turns", takeback_turns},
        {"spectators", m.spectators()},
        {"result", m.result() ? parsed(tf::proto::to_text(*m.result())) : json(nullptr)},
        {"rated", m.rated()},
        {"ratings", m.ratings() ? ratings_json(*m.ratings()) : json(nullptr)},
        {"setup", setups},
        {"position", m.start_position() ? json(*m.start_position()) : json(nullptr)},
        {"turns", turns},
        {"chat", chat},
        {"rematch_offer", side_or_null(m.rematch_offer())},
        {"rematch_declined", side_or_null(m.rematch_declined())},
        {"rematch_code", m.rematch_code() ? json(*m.rematch_code()) : json(nullptr)}};
}

}  // namespace

extern "C" {

// A mirror for the player `player_id` ("" for a spectator); its first snapshot picks the game.
EMSCRIPTEN_KEEPALIVE int tf_mirror_new(const char* player_id) {
    try {
        const int h = g_next_mirror++;
        g_mirrors[h] = std::make_unique<GameMirror>(player_id ? player_id : "");
        return h;
    } catch (...) {
        return 0;
    }
}

EMSCRIPTEN_KEEPALIVE void tf_mirror_free(int handle) {
    g_mirrors.erase(handle);
}

// One server message: {"update": "snapshot" | "event" | "ignored" | "gap" | "diverged"} plus,
// for an applied event, "kind" and "event" (the message as JSON, with "captures" filled in for a
// turn), or {"update": "error", "message"} for text that is not a server message.
EMSCRIPTEN_KEEPALIVE const char* tf_mirror_apply(int handle, const char* text) {
    try {
        auto it = g_mirrors.find(handle);
        if (it == g_mirrors.end()) return out({{"update", "error"}, {"message", "bad handle"}});
        auto parsed_msg = tf::proto::parse_server(std::string_view(text ? text : ""));
        if (auto* e = std::get_if<tf::proto::Error>(&parsed_msg))
            return out({{"update", "error"}, {"message", e->message}});
        GameMirror& m = *it->second;
        using U = GameMirror::Update;
        switch (m.apply(std::get<tf::proto::ServerMsg>(parsed_msg))) {
            case U::Ignored:
                return out({{"update", "ignored"}});
            case U::Gap:
                return out({{"update", "gap"}});
            case U::Diverged:
                return out({{"update", "diverged"}});
            case U::Snapshot:
                return out({{"update", "snapshot"}});
            case U::Event:
                break;
        }
        tf::proto::Event ev = *m.last_event();
        if (auto* t = std::get_if<tf::proto::TurnEv>(&ev.body); t && !m.turns().empty())
            t->captures = m.turns().back().captures;  // the mirror's, also for old servers
        return out({{"update", "event"},
                    {"kind", tf::proto::event_kind(ev.body)},
                    {"event", parsed(tf::proto::to_text(ev))}});
    } catch (const std::exception& e) {
        return out({{"update", "error"}, {"message", e.what()}});
    }
}

// The game as the mirror has it (see view() above), or null before its first snapshot.
EMSCRIPTEN_KEEPALIVE const char* tf_mirror_view(int handle) {
    try {
        auto it = g_mirrors.find(handle);
        if (it == g_mirrors.end() || !it->second->has_game()) return out(nullptr);
        return out(view(*it->second));
    } catch (const std::exception& e) {
        return out({{"error", e.what()}});
    }
}

}  // extern "C"
