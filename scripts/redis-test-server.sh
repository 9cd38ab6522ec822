#!/usr/bin/env bash
# A private redis-server for the tests (tests/server/bus_test.cpp): loopback only, no
# persistence, no system service; its pid file, log and port (DIR/port) all in DIR.
#
#   redis-test-server.sh start DIR PORT  start it and wait until it answers PING (nothing to do
#                                        when it runs already on PORT)
#   redis-test-server.sh stop DIR        SIGTERM, and wait until it is gone (nothing to do when
#                                        it is not running)
#   redis-test-server.sh kill DIR        SIGKILL (a crash), and wait until it is gone
#   redis-test-server.sh restart DIR     kill, then start again on the same port
set -euo pipefail

usage() {
    echo "usage: $0 start DIR PORT | stop DIR | kill DIR | restart DIR" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
cmd=$1
DIR=$(realpath -m -- "$2")
PIDFILE=$DIR/redis.pid
LOG=$DIR/redis.log

# Whether `pid` is a redis-server that runs (a zombie does not: the container's init may take
# its time to reap it; a pid reused by another program is not ours).
alive() {
    [[ $1 =~ ^[0-9]+$ && -e /proc/$1 ]] || return 1
    ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null || return 1
    [[ $(cat "/proc/$1/comm" 2>/dev/null) == redis-server* ]]
}

server_pid() { head -n 1 "$PIDFILE" 2>/dev/null || true; }
running() { alive "$(server_pid)"; }

# Whether the server on `port` answers PING with PONG.
answers() {
    local port=$1 reply=""
    if command -v redis-cli >/dev/null 2>&1; then
        reply=$(timeout 2 redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) || true
    else
        reply=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'PING\r\n' >&3 \
&& head -c 7 <&3" 2>/dev/null) || true
    fi
    [[ $reply == *PONG* ]]
}

wait_gone() {
    local pid=$1
    for _ in $(seq 1 1000); do
        alive "$pid" || return 0
        sleep 0.01
    done
    echo "$0: redis-server $pid in $DIR did not exit" >&2
    exit 1
}

start() {
    local port=$1
    if ! [[ $port =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
        echo "$0: bad port '$port'" >&2
        exit 2
    fi
    mkdir -p "$DIR"
    if running; then
        [[ $(cat "$DIR/port" 2>/dev/null) == "$port" ]] && return
        echo "$0: a redis-server runs in $DIR on another port ($(cat "$DIR/port" 2>/dev/null))" >&2
        exit 1
    fi
    rm -f "$PIDFILE"
    echo "$port" >"$DIR/port"
    # Its output to /dev/null: the daemon must not hold the caller's pipes (ctest waits for them).
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize yes \
        --pidfile "$PIDFILE" --dir "$DIR" --logfile "$LOG" </dev/null >/dev/null 2>&1 || {
        echo "$0: redis-server did not start; $LOG:" >&2
        tail -n 20 "$LOG" >&2 || true
        exit 1
    }
    for _ in $(seq 1 200); do
        answers "$port" && running && return
        sleep 0.05
    done
    echo "$0: redis-server on port $port does not answer; $LOG:" >&2
    tail -n 20 "$LOG" >&2 || true
    exit 1
}

stop() {
    local pid
    pid=$(server_pid)
    alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid"
    rm -f "$PIDFILE"
}

kill_server() {
    local pid
    pid=$(server_pid)
    alive "$pid" || return 0
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid"
    rm -f "$PIDFILE"
}

case $cmd in
    start)
        [[ $# -eq 3 ]] || usage
        start "$3"
        ;;
    stop) stop ;;
    kill) kill_server ;;
    restart)
        [[ -s $DIR/port ]] || {
            echo "$0: no port in $DIR/port (never started?)" >&2
            exit 1
        }
        kill_server
        start "$(cat "$DIR/port")"
        ;;
    *) usage ;;
esac
