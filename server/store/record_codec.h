// The storage codec: how a game's row and its journal are written, and read back. Rooms, the
// recovery at start, the reload after a store failure and the history API read rows only
// through it, so the storage format is defined here once and can change (a new `format`)
// without the wire protocol, and the wire protocol can change without the storage format.
//
// Journal format 1 (the only one so far, what store schema 1 wrote too): `event` holds the
// event message of protocol v1 exactly as it was sent (proto::to_text of the proto::Event),
// clock reading included. It reuses the serialization the room makes for the wire anyway.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "proto/messages.h"
#include "server/store/store.h"

namespace tf::server {

inline constexpr int kJournalFormat = 1;

// The row of an event whose wire text is `text` (to_text(e)), emitted at `at_ms`.
JournalRow journal_row(const proto::Event& e, std::string text, std::int64_t at_ms);
// The event a row holds; nullopt with `error` saying why when it cannot be read.
std::optional<proto::Event> read_row(const JournalRow& r, std::string& error);

// The JSON-valued columns of a game's row.
std::string variant_text(const Variant& v);
std::optional<Variant> variant_of(const std::string& text, std::string& error);
std::string time_control_text(const std::optional<proto::TimeControl>& tc);  // "null" untimed
std::optional<std::optional<proto::TimeControl>> time_control_of(const std::string& text,
                                                                 std::string& error);
std::string result_text(const std::optional<proto::Result>& r);  // "null" while unfinished
std::optional<proto::Result> result_of_text(const std::string& text);

// A game's record (rules spec §6: variant, setups, turns) from its row and journal: the setups
// and turns in the order they were played, less the turns taken back (rows that cannot be read
// are logged and skipped). For the history API and the puzzle miner.
nlohmann::json game_record(const StoredGame& g, const std::vector<JournalRow>& rows);

}  // namespace tf::server
