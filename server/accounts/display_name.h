// What a guest may call itself (hello.name; PROTOCOL.md "Names"). A name is shown to other
// players in the lobby, in games and in chat, so it must not be able to hide or fake anything:
// it is normalised (Unicode NFC, spaces trimmed and runs of spaces made one) and refused when it
// holds control or format characters (bidi overrides, zero-width characters), line separators,
// unassigned or private-use code points, or a pile of combining marks. Comparisons go through
// name_key() (NFKC, case-folded), so "Ａｎｎ" is "ann". Unicode tables: utf8proc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tf::server {

// The name as it is shown, "" for no name at all (only spaces), or nullopt with `why` (a
// sentence for the player) when it is refused. `raw` is valid UTF-8 (the protocol's parser
// checked it) of at most 32 code points.
std::optional<std::string> clean_display_name(std::string_view raw, std::string& why);

// The key names are compared by: NFKC with case folding.
std::string name_key(std::string_view name);

// Names guests may not take: the reserved usernames (server/accounts/ratings.h; but "bot-3", what
// `trunkfield bot` calls itself, is free to guests), those of nameless guests ("guest-1a2b") and
// the computer opponent's ("Computer (level 3)"), compared by key.
bool reserved_guest_name(std::string_view key);

}  // namespace tf::server
