#include "play_notices.h"

#include <ctime>
#include <optional>

#include "common/json.h"
#include "play_input.h"

namespace tf::play {

namespace {

using Json = nlohmann::json;

std::string field_text(const Json& j, const char* key, std::size_t max = 64) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? clean_text(it->get<std::string>(), max) : "";
}

// An account named by `key`: {"id", "name"}, or its name alone.
std::string name_of(const Json& j, const char* key) {
    auto it = j.find(key);
    std::string name = it == j.end()     ? ""
                       : it->is_object() ? field_text(*it, "name", 40)
                       : it->is_string() ? field_text(j, key, 40)
                                         : "";
    return name.empty() ? "someone" : name;
}

// "9x9" and "7x7" for the standard and the small board, else every number.
std::string variant_words(const Json& j) {
    auto it = j.find("variant");
    auto v = variant_from_json(it != j.end() ? *it : Json(nullptr));
    if (!v) return "";
    const std::string board = std::to_string(v->size) + "x" + std::to_string(v->size);
    if (*v == Variant{} || *v == Variant{7, 3, 2, 30}) return board;
    return board + " E" + std::to_string(v->elephants) + " B" + std::to_string(v->burnt) + " Q" +
           std::to_string(v->quiet);
}

std::string clock_words(const Json& j) {
    auto it = j.find("time_control");
    return time_control_text(it == j.end() ? Json(nullptr) : *it);
}

}  // namespace

std::string time_control_text(const Json& tc) {
    if (tc.is_null()) return "untimed";
    if (!tc.is_object()) return "";
    auto ms = [&](const char* key) -> std::optional<std::int64_t> {
        auto f = tc.find(key);
        if (f == tc.end() || !f->is_number_integer()) return std::nullopt;
        return f->get<std::int64_t>();
    };
    if (auto days = ms("days_per_move")) {
        if (!proto::correspondence_days(*days)) return "";
        return describe_time_control(proto::TimeControl{0, 0, int(*days)});
    }
    if (!ms("initial_ms") || !ms("increment_ms")) return "";
    return describe_time_control(proto::TimeControl{*ms("initial_ms"), *ms("increment_ms")});
}

std::string local_datetime(std::int64_t epoch_ms) {
    const std::time_t t = std::time_t(epoch_ms / 1000);
    std::tm tm{};
    char buf[32];
    if (!localtime_r(&t, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm))
        return "(unknown time)";
    return buf;
}

std::string decline_reason_words(std::string_view reason) {
    if (reason == "generic") return "not accepting challenges now";
    if (reason == "later") return "not now, ask again later";
    if (reason == "too_fast") return "this time control is too fast";
    if (reason == "too_slow") return "this time control is too slow";
    if (reason == "time_control") return "not this time control";
    if (reason == "rated") return "would rather play a rated game";
    if (reason == "casual") return "would rather play a casual game";
    if (reason == "variant") return "not this board";
    if (reason == "no_bot") return "not playing bots";
    if (reason == "only_bot") return "playing bots only";
    return clean_text(reason, 32);
}

std::string notification_text(const Json& item, NoticeFor where) {
    if (!item.is_object()) return "(a notification this client cannot read)";
    const std::string kind = field_text(item, "kind");
    const std::string game = field_text(item, "game", 16);
    if (kind == "challenge") {
        std::string terms;
        for (const std::string& t : {variant_words(item), clock_words(item)})
            if (!t.empty()) terms += (terms.empty() ? "" : ", ") + t;
        auto rated = item.find("rated");
        terms +=
            std::string(terms.empty() ? "" : ", ") +
            (rated != item.end() && rated->is_boolean() && rated->get<bool>() ? "rated" : "casual");
        const std::string side = field_text(item, "side", 16);
        if (!side.empty()) terms += ", you play " + side;
        std::string line = name_of(item, "from") + " challenges you (" + terms + ")";
        if (game.empty()) return line;
        if (where == NoticeFor::Shell) return line + ": trunkfield accept " + game;
        return line + ": type  join " + game + "  to accept,  decline " + game + "  to refuse";
    }
    if (kind == "challenge_accepted")
        return name_of(item, "by") + " accepted your challenge " + game;
    if (kind == "challenge_declined") {
        std::string reason = field_text(item, "reason", 32);
        for (char& c : reason)
            if (c == '_') c = ' ';
        return name_of(item, "by") + " declined your challenge " + game +
               (reason.empty() ? "" : ": " + reason);
    }
    if (kind == "tournament_game") {
        const std::string line = "Your game against " + name_of(item, "opponent") + " in " +
                                 name_of(item, "tournament") + " is ready: " + game;
        if (game.empty()) return line;
        if (where == NoticeFor::Shell) return line + " (trunkfield play, then  watch " + game + ")";
        return line + ": type  watch " + game + "  to play it";
    }
    if (kind == "followed_game") {
        const std::string line = name_of(item, "player") + " started a public game " + game;
        if (game.empty()) return line;
        if (where == NoticeFor::Shell) return line + " (trunkfield play, then  watch " + game + ")";
        return line + ": type  watch " + game + "  to watch it";
    }
    if (kind == "your_turn") {
        auto opp = item.find("opponent");
        const bool named = opp != item.end() && opp->is_object();
        std::string line = "Your turn" +
                           (named ? " against " + name_of(item, "opponent") : std::string()) +
                           (game.empty() ? "" : " in " + game);
        auto by = item.find("move_by");
        if (by != item.end() && by->is_number_integer())
            line += " (move by " + local_datetime(by->get<std::int64_t>()) + ")";
        if (game.empty()) return line;
        if (where == NoticeFor::Shell) return line + ": trunkfield play, then  watch " + game;
        return line + ": type  watch " + game + "  to play it";
    }
    if (kind == "warning") {
        const std::string note = field_text(item, "note", 400);
        return "A moderator warned you" + (note.empty() ? "." : ": " + note);
    }
    if (kind == "report_handled") {
        auto id = item.find("report");
        const std::string number =
            id != item.end() && id->is_number_integer() ? " #" + id->dump() : "";
        const std::string outcome = field_text(item, "outcome", 32);
        return "Your report" + number + " about " + name_of(item, "player") + " was handled: " +
               (outcome == "action_taken" ? "action taken"
                : outcome == "no_action"  ? "no action taken"
                                          : "outcome " + (outcome.empty() ? "?" : outcome));
    }
    return "(a notification of kind '" + (kind.empty() ? "?" : kind) + "')";
}

}  // namespace tf::play
