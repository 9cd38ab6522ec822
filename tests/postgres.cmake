# Tests against a real PostgreSQL: the CTest fixture "postgres" starts a private cluster
# (scripts/pg-test-cluster.sh: unix socket only, no service) before the tests that require it
# and destroys it after them. The tests find it through the environment variable
# TF_TEST_DATABASE_URL=${TF_PG_CONNINFO}, and each makes databases of its own in it
# (tests/support/pg_test_db.h). For the CMakeLists of tests/ and below:
#   TF_PG_TESTS     ON when the cluster can be started here (PostgreSQL 15's initdb exists)
#   TF_PG_DIR       the cluster's folder: under /tmp, where the postgres user (the one the
#                   cluster runs as when the tests run as root) can reach it, and one per build
#                   tree so the release and the sanitizer trees' clusters do not meet
#   TF_PG_CONNINFO  the conninfo of its `postgres` database

# Creating and dropping the tests' databases (blocking libpq, outside the server).
add_library(tf_pg_test_db STATIC ${CMAKE_CURRENT_LIST_DIR}/support/pg_test_db.cpp)
target_include_directories(tf_pg_test_db PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(tf_pg_test_db PUBLIC PkgConfig::PQ PRIVATE tf_warnings)

set(TF_PG_BIN /usr/lib/postgresql/15/bin)
if(EXISTS ${TF_PG_BIN}/initdb)
  set(TF_PG_TESTS ON)
  string(MD5 tf_pg_hash "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${tf_pg_hash}" 0 8 tf_pg_hash)
  set(TF_PG_DIR /tmp/tf-pg-${tf_pg_hash})
  set(TF_PG_CONNINFO "host=${TF_PG_DIR}/sock port=5432 user=postgres dbname=postgres")
  set(tf_pg_cluster bash ${CMAKE_SOURCE_DIR}/scripts/pg-test-cluster.sh)
  add_test(NAME postgres_start COMMAND ${tf_pg_cluster} start ${TF_PG_DIR})
  add_test(NAME postgres_stop COMMAND ${tf_pg_cluster} destroy ${TF_PG_DIR})
  set_tests_properties(postgres_start PROPERTIES FIXTURES_SETUP postgres
    LABELS "integration;sanitize;postgres" TIMEOUT 180)
  set_tests_properties(postgres_stop PROPERTIES FIXTURES_CLEANUP postgres
    LABELS "integration;sanitize;postgres" TIMEOUT 180)
else()
  set(TF_PG_TESTS OFF)
  message(WARNING "PostgreSQL tests: not registered, ${TF_PG_BIN}/initdb is missing "
                  "(apt-get install postgresql-15)")
endif()
