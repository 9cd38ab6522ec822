# Sourced by bench/kernel_share.sh and bench/tail.sh: one server alone on CPU 0.
# start_cpu0 relay LOG | start_cpu0 ours LOG DATA [SERVER ARGS...]: starts the bench relay, or
# SERVER_BIN with --threads 1 and a data folder, and waits until it listens; sets PID, PORT
# (WebSocket) and PROTO (tf-loadgen's --proto).
start_cpu0() {
    local kind=$1 log=$2
    shift 2
    if [ "$kind" = relay ]; then
        taskset -c 0 node "$ROOT/bench/relay/relay.mjs" --port 0 >"$log" 2>&1 &
    else
        local data=$1
        shift
        taskset -c 0 "$SERVER_BIN" --bind 127.0.0.1 --http-port 0 --tcp-port 0 --threads 1 \
            --data "$data" --max-connections-per-ip 0 "$@" >"$log" 2>&1 &
    fi
    PID=$!
    for _ in $(seq 500); do grep -q listening "$log" && break; sleep 0.02; done
    if [ "$kind" = relay ]; then
        PORT=$(sed -n 's/.*listening relay=[^ ]*:\([0-9]*\).*/\1/p' "$log"); PROTO=relay
    else
        PORT=$(sed -n 's/.*listening http=[^ ]*:\([0-9]*\) tcp=.*/\1/p' "$log"); PROTO=trunkfield
    fi
}
