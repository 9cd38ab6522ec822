#!/usr/bin/env bash
# A private PostgreSQL 15 cluster for the tests (the CTest fixture "postgres", tests/postgres.cmake):
# no system service, no TCP port, only a unix socket in DIR/sock. PostgreSQL refuses to run as
# root, so as root (CI) every initdb/pg_ctl runs as the `postgres` user and DIR (under /tmp) is
# given to it; otherwise everything runs as the current user.
#
#   pg-test-cluster.sh start DIR    create the cluster in DIR/data if missing, start it (nothing
#                                   to do when it runs) and print its conninfo on stdout
#   pg-test-cluster.sh stop DIR     fast shutdown; nothing to do when it is not running
#   pg-test-cluster.sh kill DIR     SIGKILL the postmaster and its children (a crash)
#   pg-test-cluster.sh restart DIR  start again (after `kill`: crash recovery), print the conninfo
#   pg-test-cluster.sh destroy DIR  stop, and remove DIR
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PORT=5432

usage() {
    echo "usage: $0 start|stop|kill|restart|destroy DIR" >&2
    exit 2
}
[[ $# -eq 2 ]] || usage
cmd=$1
DIR=$(realpath -m -- "$2")
DATA=$DIR/data
SOCK=$DIR/sock

# Runs a PostgreSQL program as the user that owns the cluster, from a folder it can read.
as_pg() {
    if [[ $(id -u) -eq 0 ]]; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && "$@")
    fi
}

conninfo() { echo "host=$SOCK port=$PORT user=postgres dbname=postgres"; }

# Whether `pid` runs (a zombie does not: the container's init may take its time to reap it).
alive() { [[ -e /proc/$1 ]] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

postmaster_pid() { head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true; }

# Not pg_ctl status: it takes a zombie postmaster for a running one.
running() {
    local pid
    pid=$(postmaster_pid)
    [[ $pid =~ ^[0-9]+$ ]] && alive "$pid"
}

# The lock files of a postmaster that is gone (killed): PostgreSQL would refuse to start while
# their pid is a zombie, and must not mistake a reused pid for a running server.
remove_stale_locks() { as_pg rm -f "$DATA/postmaster.pid" "$SOCK/.s.PGSQL.$PORT.lock"; }

prepare_dir() {
    mkdir -p "$DIR"
    if [[ $(id -u) -eq 0 ]]; then
        # A chroot unpacked into a mktemp folder has its / at mode 700: no user but root can
        # run anything there. Debian's / is 755; give it that, or PostgreSQL cannot start.
        if ! runuser -u postgres -- /bin/true 2>/dev/null && [[ $(stat -c %a /) == 700 ]]; then
            echo "$0: / has mode 700 (an unpacked chroot?); setting Debian's 755 so that the postgres user can run" >&2
            chmod 755 /
        fi
        chown postgres:postgres "$DIR"
        chmod 700 "$DIR"
        if ! runuser -u postgres -- test -w "$DIR"; then
            echo "$0: the postgres user cannot write $DIR (put it under /tmp)" >&2
            exit 1
        fi
    fi
    as_pg mkdir -p "$SOCK"
}

start() {
    if running; then
        conninfo
        return
    fi
    prepare_dir
    remove_stale_locks
    if [[ ! -f $DATA/PG_VERSION ]]; then
        as_pg "$PG_BIN/initdb" -D "$DATA" --auth=trust -U postgres --no-sync -E UTF8 \
            --locale=C >"$DIR/initdb.log" 2>&1 || {
            cat "$DIR/initdb.log" >&2
            exit 1
        }
    fi
    as_pg "$PG_BIN/pg_ctl" -w -t 120 -D "$DATA" -l "$DIR/log" -o "-p $PORT \
-c listen_addresses='' -c unix_socket_directories='$SOCK' -c fsync=on \
-c synchronous_commit=on -c max_connections=200 -c shared_buffers=64MB" start >/dev/null || {
        echo "$0: the cluster in $DATA did not start; $DIR/log:" >&2
        tail -n 30 "$DIR/log" >&2 || true
        exit 1
    }
    conninfo
}

stop() {
    if running; then as_pg "$PG_BIN/pg_ctl" -w -t 120 -D "$DATA" -m fast stop >/dev/null; fi
}

# SIGSTOP first so the postmaster forks nothing more while its children are listed, then
# SIGKILL all of them, and wait until they are gone (a restart needs the shared memory free).
kill_cluster() {
    running || return 0
    local pid
    pid=$(postmaster_pid)
    kill -STOP "$pid"
    local pids
    pids="$pid $(pgrep -P "$pid" | tr '\n' ' ')"
    # shellcheck disable=SC2086  # a list of pids
    kill -KILL $pids 2>/dev/null || true
    local p
    for p in $pids; do
        for _ in $(seq 1 500); do
            alive "$p" || break
            sleep 0.01
        done
    done
    remove_stale_locks
}

case $cmd in
    start) start ;;
    stop) stop ;;
    kill) kill_cluster ;;
    restart)
        stop
        start
        ;;
    destroy)
        stop
        rm -rf -- "$DIR"
        ;;
    *) usage ;;
esac
