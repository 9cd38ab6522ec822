// The messages between nodes on the bus (docs/ARCHITECTURE.md "Bus messages"): a closed set, one
// struct per kind, written and read here only. A payload is a JSON header on one line (its kind
// "k" and the protocol version "v" first, then the struct's fields), a newline, then a body
// carried untouched: a client's request (Req), a server message (Out), or a lobby entry's two
// lines (Lobby). Reading is strict: a header that is not an object, lacks a field its kind
// needs or has one of the wrong type is refused with the reason; unknown extra fields are
// ignored and a header without "v" is version 1, so that nodes of the previous and the next
// release can run side by side during a rolling upgrade; a kind this node does not know (a
// newer node's) is refused as such and ignored by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tf::server::bus {

inline constexpr int kVersion = 1;

// Origin -> owner: a client's request about a game the owner holds (body: the request as the
// client sent it). `seq` numbers the connection's requests (0: run it whatever, a catch-up or
// a watch); `ref` is the request's, "" without one.
struct Req {
    std::string from;  // the origin's process, NODE@INCARNATION
    std::uint64_t conn = 0;
    std::string code;
    std::uint64_t seq = 0;
    std::string ref;
    std::string player_id, player_name;
    bool account = false;
    bool bot = false;  // absent from older nodes: false
};
// Owner -> origin: a server message for one or several of the origin's connections (body).
struct Out {
    std::string from;  // the owner's node id
    std::string to;    // the origin's process it was meant for
    std::vector<std::uint64_t> conns;
    std::uint64_t seq = 0;  // the request it answers, 0 for none
};
// Origin -> owner: the connection closed (or is unknown to the origin).
struct Gone {
    std::string from;  // the origin's process
    std::uint64_t conn = 0;
};
// Origin -> owner, every 2 s: the connections the origin still forwards for.
struct Alive {
    std::string from;
    std::vector<std::uint64_t> conns;
};
// Owner -> origin: the owner does not hold `code` (any more).
struct NotMine {
    std::string from, to;
    std::uint64_t conn = 0;
    std::string code;
};
// Owner -> origin: close the connection (a sign-out, a flood).
struct Close {
    std::string from, to;
    std::uint64_t conn = 0;
    std::string reason;
};
// Owner -> origin: a request came for a connection this node had no stand-in for (it had
// dropped it: the origin looked dead, silent or past its lease): whatever it watched here, it
// watches no more. The origin catches the connection's route up (a watch since its last);
// every route of the connection served by that owner when `code` is empty (the connection was
// listed `alive` again after its stand-in was dropped).
struct Rewatch {
    std::string from, to;
    std::uint64_t conn = 0;
    std::string code;
};
// To all: the node was cut off from the bus and is back (what it published meanwhile is lost).
struct Back {
    std::string from;  // node id
};
// To all: the lobby entries of one of the node's games (body: the open entry's `lobby`
// message and the live entry's `live` message, a line each, "null" for none).
struct Lobby {
    std::string from, code;
};
// To all: `owner` serves `code` now.
struct Moved {
    std::string code, owner;
};
// To all: publish your lobby entries again.
struct Sync {
    std::string from;
};
// To all: end every connection of `player` (its tokens were revoked).
struct End {
    std::string from, player, reason;
    bool closed = false;  // the account was closed (absent from older nodes: false)
};
// To all: hand the body (a server message: a notification) to every connection of `player`.
struct Tell {
    std::string from, player;
};
// To all: `player`'s blocks changed: its connections read them again.
struct Refresh {
    std::string from, player;
};
// To all: the node gave its games up (SIGTERM): claim them now.
struct Handover {
    std::string from;
};

using Message = std::variant<Req, Out, Gone, Alive, NotMine, Close, Back, Lobby, Moved, Sync, End,
                             Handover, Rewatch, Tell, Refresh>;

// The payload: the header line, then `body`.
std::string encode(const Message& m, std::string_view body = {});

struct Decoded {
    Message message;
    std::string_view body;  // into the payload given to decode()
};
// The message of a payload, or nullopt with `why` (never throws).
std::optional<Decoded> decode(std::string_view payload, std::string* why = nullptr);

}  // namespace tf::server::bus
