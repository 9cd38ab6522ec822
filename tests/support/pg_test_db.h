// PostgreSQL databases for the tests that run a store on it (tests/postgres.cmake starts the
// cluster and sets TF_TEST_DATABASE_URL): one database per test subject, created and dropped
// with blocking libpq calls, which is fine outside the server.
#pragma once

#include <string>

namespace tf::test {

// TF_TEST_DATABASE_URL (the conninfo of the test cluster's `postgres` database), or "" when
// the tests run without PostgreSQL.
std::string pg_test_url();

// The connection string `base` (URI or "key=value ..." form) with its database replaced by
// `dbname`, in "key=value ..." form.
std::string pg_with_dbname(const std::string& base, const std::string& dbname);

// Creates the database `name` through `base`, unless it exists. Throws std::runtime_error.
void pg_create_database(const std::string& base, const std::string& name);

// Drops the database `name` if it exists, ending its connections (WITH (FORCE)). Throws
// std::runtime_error.
void pg_drop_database(const std::string& base, const std::string& name);

}  // namespace tf::test
