// The shared store: one PostgreSQL database that every server node writes, on libpq directly.
// One thread of its own runs an Asio io_context with two connections, each non-blocking and in
// pipeline mode: the writer sends a whole group commit (every operation queued meanwhile) as
// one implicit transaction and one round trip; the reader answers lookups and the history API.
// docs/ARCHITECTURE.md ("PostgreSQL") states the settings the durability contract needs.
#pragma once

#include <memory>
#include <string>

#include "server/store/store.h"

namespace tf::server {

// The schema version this build creates and understands (PostgreSQL's own numbering).
inline constexpr int kPgSchemaVersion = 11;

struct PgOptions {
    // A libpq connection string: postgresql://user@host:port/db or "host=... dbname=...".
    std::string url;
    // Start even if the server reports fsync or synchronous_commit off (an ack is then not
    // durable): the operator's explicit choice.
    bool accept_unsafe = false;
};

// Connects, checks the durability settings, applies the migrations this database lacks (under
// an advisory lock, so two nodes starting together migrate once) and starts the store's thread.
// Throws StoreError when the database is unreachable, unsafe, or has a newer schema.
std::unique_ptr<Store> open_pg_store(const PgOptions& options);

// The connection string for logs: host, port, database and user, never a password.
std::string redact_url(const std::string& url);

// `trunkfield-server migrate-from-sqlite`: copies every player, token, account, rating, game and
// journal row of the SQLite store in `dir` into the (empty) PostgreSQL store at `options.url`,
// then reads every copied game back and compares it row by row. Returns a summary line; throws
// StoreError on any failure or difference.
std::string migrate_sqlite_to_pg(const std::string& dir, const PgOptions& options);

}  // namespace tf::server
