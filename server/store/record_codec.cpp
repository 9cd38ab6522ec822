#include "server/store/record_codec.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "proto/json_writer.h"

namespace tf::server {

using nlohmann::json;

JournalRow journal_row(const proto::Event& e, std::string text, std::int64_t at_ms) {
    return JournalRow{e.version, std::string(proto::event_kind(e.body)), std::move(text), at_ms,
                      kJournalFormat};
}

std::optional<proto::Event> read_row(const JournalRow& r, std::string& error) {
    if (r.format != 1) {
        error = "journal format " + std::to_string(r.format) + " is not known to this server";
        return std::nullopt;
    }
    auto parsed = proto::parse_server(r.event);
    if (auto* e = std::get_if<proto::Error>(&parsed)) {
        error = e->message;
        return std::nullopt;
    }
    auto* ev = std::get_if<proto::Event>(&std::get<proto::ServerMsg>(parsed));
    if (!ev) {
        error = "not an event";
        return std::nullopt;
    }
    if (ev->version != r.version || proto::event_kind(ev->body) != r.kind) {
        error = "the row says " + r.kind + " version " + std::to_string(r.version) + " but holds " +
                std::string(proto::event_kind(ev->body)) + " version " +
                std::to_string(ev->version);
        return std::nullopt;
    }
    if (std::holds_alternative<proto::UnknownEv>(ev->body)) {
        error = "unknown event kind " + r.kind;
        return std::nullopt;
    }
    return std::move(*ev);
}

std::string variant_text(const Variant& v) {
    std::string out;
    proto::JsonWriter w(out);
    proto::write(w, v);
    return out;
}

std::optional<Variant> variant_of(const std::string& text, std::string& error) {
    json j = json::parse(text, nullptr, false);
    auto v = variant_from_json(j);
    if (!v) {
        error = "stored variant: " + v.error().message;
        return std::nullopt;
    }
    return *v;
}

std::string time_control_text(const std::optional<proto::TimeControl>& tc) {
    std::string out;
    proto::JsonWriter w(out);
    proto::write(w, tc);
    return out;
}

std::optional<std::optional<proto::TimeControl>> time_control_of(const std::string& text,
                                                                 std::string& error) {
    json j = json::parse(text, nullptr, false);
    if (j.is_null()) return std::optional<proto::TimeControl>();
    if (j.is_object() && j.contains("days_per_move")) {
        if (!j["days_per_move"].is_number_integer() ||
            !proto::correspondence_days(j["days_per_move"].get<std::int64_t>())) {
            error = "stored time control: " + text;
            return std::nullopt;
        }
        return std::optional<proto::TimeControl>(
            proto::TimeControl{0, 0, j["days_per_move"].get<int>()});
    }
    if (!j.is_object() || !j["initial_ms"].is_number_integer() ||
        !j["increment_ms"].is_number_integer()) {
        error = "stored time control: " + text;
        return std::nullopt;
    }
    proto::TimeControl tc{j["initial_ms"].get<std::int64_t>(),
                          j["increment_ms"].get<std::int64_t>()};
    tc.berserk = j.value("berserk", false);
    return std::optional<proto::TimeControl>(tc);
}

std::string result_text(const std::optional<proto::Result>& r) {
    return r ? proto::to_text(*r) : std::string("null");
}

std::optional<proto::Result> result_of_text(const std::string& text) {
    return proto::parse_result(json::parse(text, nullptr, false));
}

std::string username_key(std::string_view username) {
    std::string k(username);
    for (char& c : k)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return k;
}

nlohmann::json game_record(const StoredGame& g, const std::vector<JournalRow>& rows) {
    using nlohmann::json;
    json setup = {{"silver", nullptr}, {"bronze", nullptr}};
    json turns = json::array();
    for (const auto& r : rows) {
        std::string error;
        auto ev = read_row(r, error);
        if (!ev) {
            spdlog::error("game {} journal version {}: {}", g.code, r.version, error);
            continue;
        }
        if (auto* s = std::get_if<proto::SetupEv>(&ev->body))
            setup[std::string(side_name(s->side))] = to_json(s->setup);
        else if (auto* t = std::get_if<proto::TurnEv>(&ev->body))
            turns.push_back(to_json(t->turn));
        else if (auto* b = std::get_if<proto::TakebackEv>(&ev->body))
            for (int i = 0; i < b->turns && !turns.empty(); ++i) turns.erase(turns.end() - 1);
    }
    std::string error;
    auto v = variant_of(g.variant, error);
    return {{"variant", v ? to_json(*v) : json(nullptr)}, {"setup", setup}, {"turns", turns}};
}

}  // namespace tf::server
