#!/usr/bin/env bash
# Entrypoint of docker/postgres.Dockerfile. At the first start (an empty $PGDATA): initdb, the
# login role `trunkfield` with the password $TRUNKFIELD_DB_PASSWORD, its database `trunkfield`,
# and password (SCRAM) authentication for it from any address; the superuser `postgres` can
# only connect over the container's unix socket. Then, every time, PostgreSQL itself as PID 1,
# listening on all addresses. fsync and synchronous_commit stay on: the game server refuses a
# database whose commits are not durable.
set -euo pipefail
: "${PGDATA:?}"
if [[ ! -s $PGDATA/PG_VERSION ]]; then
    password=${TRUNKFIELD_DB_PASSWORD:?set TRUNKFIELD_DB_PASSWORD for the first start}
    initdb -D "$PGDATA" -U postgres -E UTF8 --locale=C --auth-local=peer \
        --auth-host=scram-sha-256
    echo "host trunkfield trunkfield all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
    psql -X -q -v ON_ERROR_STOP=1 -v pw="$password" -U postgres -d postgres <<'SQL'
CREATE ROLE trunkfield LOGIN PASSWORD :'pw';
CREATE DATABASE trunkfield OWNER trunkfield;
SQL
    pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
