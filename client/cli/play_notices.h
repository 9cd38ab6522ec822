// What the terminal client says about a player's notifications (proto/PROTOCOL.md
// "Notifications") and about a declined challenge ("Challenges"). No I/O: `trunkfield
// notifications` prints these lines, `trunkfield play` shows the live ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tf::play {

// A decline reason (proto::kDeclineReasons) in words: "later" -> "not now, ask again later".
// An unknown reason is shown as it came (made safe to print).
std::string decline_reason_words(std::string_view reason);

// A time control as the server writes it in JSON, in words (describe_time_control): null is
// "untimed", {"days_per_move":3} "3 days per move"; "" when malformed.
std::string time_control_text(const nlohmann::json& tc);

// "2026-12-09 14:03" in local time, from epoch ms.
std::string local_datetime(std::int64_t epoch_ms);

// Where the line about a challenge points to: the shell's commands (`trunkfield accept CODE`)
// or those typed in `trunkfield play` (`join CODE`, `decline CODE`).
enum class NoticeFor { Shell, Play };

// One line about a notification (its stored fields, "type" or not): "ann challenges you (7x7,
// 5+2, casual, you play bronze): trunkfield accept k3v9qa", "bob accepted your challenge
// k3v9qa", "bob declined your challenge k3v9qa: later", "bob started a public game k3v9qa
// (trunkfield play, then  watch k3v9qa)", "A moderator warned you: ...", "Your report #4 about
// cat was handled: action taken", "Your turn against bob in k3v9qa (move by 2026-12-09 14:03):
// trunkfield play, then  watch k3v9qa" (a correspondence game). Any field may be missing or of the
// wrong type: the line says less, it never throws.
std::string notification_text(const nlohmann::json& item, NoticeFor where);

}  // namespace tf::play
