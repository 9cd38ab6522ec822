// A room and its store (room_recovery.cpp; docs/ARCHITECTURE.md "Failures"): the replay of a
// stored game that rebuilds the room's state (load: after a restart, after a failure, to expand
// a summary), suspension when a commit fails and the failed operation's fate once the saved
// game is read back, resumption when the store is healthy again, a node fenced off a game
// another node took over, and a finished game kept as a summary. The reads themselves are the
// Room's (Room::reload, Room::expand: off the strand); this part works on their answers, on the
// core (room_core.h) and the room's time (room_time.h). Unit tests:
// tests/server/room_recovery_test.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/room/room_core.h"
#include "server/room/room_time.h"
#include "server/store/store.h"

namespace tf::server {

class RoomRecovery {
  public:
    using Out = RoomOps::Out;
    using Status = proto::GameStatus;
    RoomRecovery(RoomCore& c, RoomTime& t) : c_(c), t_(t) {}

    // A failed commit suspends the room: nothing of the operation is sent (its messages are
    // held until the store says whether it holds them: reloaded()), it goes off the lobby and
    // stays paused, clocks stopped. True when the saved game is to be read back (Room::reload);
    // false for a game whose creation failed, which is dropped (`creating`).
    bool suspend(const std::string& why, const std::vector<Out>& out,
                 const std::vector<std::function<void()>>& after, bool creating);
    // The saved game as read back after a failure: the room takes it (load()), the failed
    // operation's fate is told, and the recovery timer starts.
    void reloaded(Read<std::optional<GameRows>> read);
    // The recovery timer: resumes once the store is healthy (everyone gets a fresh snapshot).
    // False when the saved game could not be read back yet: the Room reads it again.
    bool try_resume();
    // Cluster mode: another node took the game over; nothing of the refused operation is sent,
    // and this node drops the game: its watchers, and whoever waits for an ack among `unsent`,
    // are told it moved (Participant::moved). `newer`: this node serves the game again in a
    // newer room, which keeps the seats and the directory's entry.
    void fenced(const std::string& why, const std::vector<Out>* unsent, bool newer);
    // Resets the game to `row` and `journal` replayed through the rules; false (and `error`)
    // when they do not replay or disagree.
    bool load(const StoredGame& row, const std::vector<JournalRow>& journal, std::string& error);

    // After every operation (Room::idle): once a finished game's end is committed to a store
    // that can give it back, the room keeps a summary (GameRecord::compact) and drops the
    // history. Anything that needs the full state first reads it back (Room::expand).
    void compact();
    // The finished game as read back: false (the summary unchanged) when it does not replay to
    // the summary's version and status.
    bool expanded(const Read<std::optional<GameRows>>& read);

  private:
    // A failed commit's fate learnt from the store (`saved`; nullopt: unreadable) and told.
    void settle_doubt(std::optional<bool> saved);
    void cancel_in_doubt();  // a creation that failed: its row cancelled, should it exist

    RoomCore& c_;
    RoomTime& t_;
};

}  // namespace tf::server
