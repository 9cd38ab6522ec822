#include "server/room/directory.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "server/base/secrets.h"
#include "server/room/room.h"

namespace tf::server {

std::shared_ptr<Room> RoomFactory::make(const std::string& code, RoomParams params,
                                        Player creator) {
    return std::make_shared<Room>(boost::asio::make_strand(ioc_), code, std::move(params),
                                  std::move(creator), services_);
}

RoomFactory::Adopted RoomFactory::adopt(const StoredGame& row, const char* who) {
    return replay(row, nullptr, who);
}

RoomFactory::Adopted RoomFactory::adopt(const GameRows& rows, const char* who) {
    return replay(rows.row, &rows.journal, who);
}

RoomFactory::Adopted RoomFactory::replay(const StoredGame& row,
                                         const std::vector<JournalRow>* journal, const char* who) {
    std::string error;
    try {
        std::vector<JournalRow> read;
        if (!journal) {
            read = services_.store.journal(row.code);
            journal = &read;
        }
        if (auto room =
                Room::restore(boost::asio::make_strand(ioc_), row, *journal, services_, error))
            return {std::move(room)};
    } catch (const StoreError& e) {
        if (e.fault) throw;
        error = e.what();
    } catch (const std::exception& e) {
        error = e.what();
    }
    spdlog::critical("{}: game {} does not replay and is quarantined: {}", who, row.code, error);
    try {
        services_.store.quarantine(row.code, error);
    } catch (const std::exception& e) {
        spdlog::critical("{}: cannot quarantine game {}: {}", who, row.code, e.what());
        return {nullptr, false};
    }
    return {nullptr, true};
}

std::shared_ptr<Room> LocalDirectory::find(const std::string& code) {
    std::lock_guard lock(m_);
    auto it = rooms_.find(code);
    return it == rooms_.end() ? nullptr : it->second;
}

std::string random_code(std::size_t n) {
    const std::string hex = random_hex(n);
    std::string code(n, ' ');
    for (std::size_t i = 0; i < n; ++i)
        code[i] =
            kCodeAlphabet[std::stoi(hex.substr(2 * i, 2), nullptr, 16) % kCodeAlphabet.size()];
    return code;
}

void LocalDirectory::create_as(const std::string& code, RoomParams params, Player creator,
                               Store::Executor ex, Created done) {
    if (find(code)) return boost::asio::post(ex, [done] { done(nullptr); });
    services_.store.read_code_taken(code, ex,
                                    [this, code, params = std::move(params),
                                     creator = std::move(creator), done](Read<bool> taken) mutable {
                                        if (!taken.ok() || *taken.value) return done(nullptr);
                                        std::shared_ptr<Room> room;
                                        {
                                            std::lock_guard lock(m_);
                                            if (!rooms_.count(code))
                                                room = rooms_[code] =
                                                    factory_.make(code, params, creator);
                                        }
                                        done(std::move(room));
                                    });
}

void LocalDirectory::create(RoomParams params, Player creator, Store::Executor ex, Created done) {
    try_code(std::move(params), std::move(creator), std::move(ex), std::move(done), 0);
}

// A draw is taken by chance almost never, so many refusals in a row mean the store cannot
// answer (a failed read counts as "taken").
void LocalDirectory::try_code(RoomParams params, Player creator, Store::Executor ex, Created done,
                              int attempt) {
    if (attempt >= 16) return boost::asio::post(ex, [done] { done(nullptr); });
    std::string code = random_code();
    if (find(code)) return try_code(std::move(params), std::move(creator), ex, done, attempt + 1);
    services_.store.read_code_taken(
        code, ex,
        [this, code, params = std::move(params), creator = std::move(creator), ex, done,
         attempt](Read<bool> taken) mutable {
            if (!taken.ok() || *taken.value)
                return try_code(std::move(params), std::move(creator), ex, done, attempt + 1);
            std::shared_ptr<Room> room;
            {
                std::lock_guard lock(m_);
                if (!rooms_.count(code)) room = rooms_[code] = factory_.make(code, params, creator);
            }
            if (!room)  // taken in memory meanwhile
                return try_code(std::move(params), std::move(creator), ex, done, attempt + 1);
            done(std::move(room));
        });
}

void LocalDirectory::remove(const std::string& code) {
    {
        std::lock_guard lock(m_);
        rooms_.erase(code);
        suspended_.erase(code);
    }
    services_.listings.remove(code);
}

bool LocalDirectory::recover() {
    std::vector<StoredGame> games;
    try {
        games = services_.store.unfinished();
    } catch (const std::exception& e) {
        spdlog::critical("recovery: cannot read the store: {}", e.what());
        return false;
    }
    int restored = 0, quarantined = 0;
    for (const auto& g : games) {
        RoomFactory::Adopted a;
        try {
            a = factory_.adopt(g, "recovery");
        } catch (const StoreError& e) {
            spdlog::critical("recovery: cannot read game {} from the store: {}", g.code, e.what());
            return false;
        }
        if (!a.quarantined && !a.room) return false;
        if (!a.room) {
            ++quarantined;
            continue;
        }
        auto& room = a.room;
        {
            std::lock_guard lock(m_);
            rooms_[g.code] = room;
        }
        room->resume();
        ++restored;
    }
    if (!games.empty())
        spdlog::info("recovery: {} unfinished games restored, {} quarantined", restored,
                     quarantined);
    return true;
}

void LocalDirectory::set_suspended(const std::string& code, bool suspended) {
    std::lock_guard lock(m_);
    if (suspended)
        suspended_.insert(code);
    else
        suspended_.erase(code);
}

bool LocalDirectory::is_suspended(const std::string& code) {
    std::lock_guard lock(m_);
    return suspended_.count(code) > 0;
}

void LocalDirectory::add(const std::string& code, std::shared_ptr<Room> room) {
    std::lock_guard lock(m_);
    rooms_[code] = std::move(room);
}

std::vector<std::shared_ptr<Room>> LocalDirectory::all() {
    std::lock_guard lock(m_);
    std::vector<std::shared_ptr<Room>> out;
    out.reserve(rooms_.size());
    for (auto& [code, room] : rooms_) out.push_back(room);
    return out;
}

std::size_t LocalDirectory::size() {
    std::lock_guard lock(m_);
    return rooms_.size();
}

}  // namespace tf::server
