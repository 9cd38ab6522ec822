// The room directory: which games this process serves, by code. It is the one place rooms are
// made (RoomFactory): for a new game, and adopted from the store (at start for the unfinished
// games this process owns; with several nodes, for a game this node claims). With several
// nodes the directory still holds only this node's rooms: the cluster (server/cluster/) claims
// games with leases in PostgreSQL, adds and removes them here, and reaches games on other
// nodes through the Peers seam (server/session/hub.h), not through this directory.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "server/base/participant.h"
#include "server/room/room_services.h"

namespace tf::server {

class Room;
struct RoomParams;

// Builds rooms, each on a strand of its own, with the process's services.
class RoomFactory {
  public:
    RoomFactory(boost::asio::io_context& ioc, RoomServices& services)
        : ioc_(ioc), services_(services) {}
    std::shared_ptr<Room> make(const std::string& code, RoomParams params, Player creator);
    // An unfinished game taken into this process, at start (LocalDirectory::recover) or from
    // another node (server/cluster/cluster.cpp): its journal read from the store and replayed.
    // A game that does not replay is quarantined in the store (logged critical, prefixed with
    // `who`): then `room` is null, and `quarantined` says whether the store took that. The
    // store's own fault reading it is thrown (StoreError, fault true): the game is left as is.
    struct Adopted {
        std::shared_ptr<Room> room;
        bool quarantined = false;
    };
    Adopted adopt(const StoredGame& row, const char* who);
    // The same for a game whose journal was read with its row (Store::game_rows).
    Adopted adopt(const GameRows& rows, const char* who);

  private:
    // `journal` null: read from the store first.
    Adopted replay(const StoredGame& row, const std::vector<JournalRow>* journal, const char* who);
    boost::asio::io_context& ioc_;
    RoomServices& services_;
};

// The characters of game codes and tournament ids: no 0/o, 1/l/i.
inline constexpr std::string_view kCodeAlphabet = "23456789abcdefghjkmnpqrstuvwxyz";
// A fresh code of `n` characters of kCodeAlphabet (a game's: six, 31^6 codes).
std::string random_code(std::size_t n = 6);

class RoomDirectory {
  public:
    using Created = std::function<void(std::shared_ptr<Room>)>;
    virtual ~RoomDirectory() = default;

    virtual std::shared_ptr<Room> find(const std::string& code) = 0;
    // A new room under a fresh code: codes are checked against the store (off the network
    // threads), then `done` runs on `ex` with the room, not yet opened, or with null when no
    // free code could be made sure of (the store cannot be read).
    virtual void create(RoomParams params, Player creator, Store::Executor ex, Created done) = 0;
    virtual void remove(const std::string& code) = 0;
    // At start: rebuilds the unfinished games this process owns; false when the store cannot
    // be read (the server must not start).
    virtual bool recover() = 0;
    // Games paused by a store failure (RoomRecovery::suspend), for the history API.
    virtual void set_suspended(const std::string& code, bool suspended) = 0;
    virtual bool is_suspended(const std::string& code) = 0;
    virtual std::size_t size() = 0;
};

// One process owning every game of its store.
class LocalDirectory : public RoomDirectory {
  public:
    LocalDirectory(RoomFactory& factory, RoomServices& services)
        : factory_(factory), services_(services) {}
    std::shared_ptr<Room> find(const std::string& code) override;
    void create(RoomParams params, Player creator, Store::Executor ex, Created done) override;
    // A new room under `code`, chosen by its maker (a tournament's pairing): `done` gets null
    // when a room or a game of that code exists already, or the store cannot say.
    void create_as(const std::string& code, RoomParams params, Player creator, Store::Executor ex,
                   Created done);
    void remove(const std::string& code) override;
    bool recover() override;
    void set_suspended(const std::string& code, bool suspended) override;
    bool is_suspended(const std::string& code) override;
    std::size_t size() override;
    // Cluster mode: a game claimed from another node, restored (server/cluster/cluster.cpp).
    void add(const std::string& code, std::shared_ptr<Room> room);
    std::vector<std::shared_ptr<Room>> all();

  private:
    void try_code(RoomParams params, Player creator, Store::Executor ex, Created done, int attempt);
    RoomFactory& factory_;
    RoomServices& services_;
    std::mutex m_;
    std::map<std::string, std::shared_ptr<Room>> rooms_;
    std::set<std::string> suspended_;
};

}  // namespace tf::server
