#!/usr/bin/env bash
# Entrypoint of docker/haproxy.Dockerfile: the certificate, then haproxy itself as PID 1 with the
# arguments given (the image's CMD: -db -f /etc/haproxy/haproxy.cfg).
#
# HAProxy wants the certificate chain and its private key in one PEM file; haproxy.cfg reads its
# path from TRUNKFIELD_TLS_PEM.
# - TRUNKFIELD_TLS_PEM set (e.g. /certs/site.pem, the operator's folder mounted on /certs): that
#   file is used as it is, and must exist.
# - unset or empty: a self-signed certificate for TRUNKFIELD_TLS_NAME (default localhost: a DNS
#   name or an IP address) in $TRUNKFIELD_TLS_SELF_SIGNED (default /certs/self-signed.pem, on the
#   volume), made at the first start and made again when that name changes or it expires within
#   30 days. (TRUNKFIELD_TLS_SELF_SIGNED is for the test, tests/docker/dockerfile_test.py.)
set -euo pipefail

fail() { echo "haproxy-entrypoint: $*" >&2; exit 1; }

if [[ -n ${TRUNKFIELD_TLS_PEM:-} ]]; then
    [[ -f $TRUNKFIELD_TLS_PEM && -r $TRUNKFIELD_TLS_PEM ]] ||
        fail "TRUNKFIELD_TLS_PEM=$TRUNKFIELD_TLS_PEM is not a readable file (is its folder mounted on /certs, TRUNKFIELD_TLS_DIR?)"
    grep -q -- "-----BEGIN .*PRIVATE KEY-----" "$TRUNKFIELD_TLS_PEM" ||
        fail "TRUNKFIELD_TLS_PEM=$TRUNKFIELD_TLS_PEM holds no private key (HAProxy wants the certificate chain and the key in one file)"
else
    name=${TRUNKFIELD_TLS_NAME:-localhost}
    if [[ $name =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || $name =~ ^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*$ ]]; then
        san="IP:$name"
    elif [[ $name =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; then
        san="DNS:$name"
    else
        fail "TRUNKFIELD_TLS_NAME=$name is neither a DNS name nor an IP address"
    fi
    pem=${TRUNKFIELD_TLS_SELF_SIGNED:-/certs/self-signed.pem}
    if [[ ! -s $pem ]] ||
        ! openssl x509 -in "$pem" -noout -checkend $((30 * 24 * 3600)) >/dev/null 2>&1 ||
        [[ $(openssl x509 -in "$pem" -noout -subject -nameopt RFC2253) != "subject=CN=$name" ]]; then
        echo "haproxy-entrypoint: making a self-signed certificate for $name in $pem" >&2
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=$name" \
            -addext "subjectAltName=$san" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null ||
            fail "openssl could not make the certificate"
        (umask 077 && cat "$tmp/cert.pem" "$tmp/key.pem" >"$pem.new")
        mv -f "$pem.new" "$pem"
        rm -rf "$tmp"
        trap - EXIT
    fi
    export TRUNKFIELD_TLS_PEM=$pem
fi

# HAProxy needs two descriptors per connection (the client's and the node's) and a few more, and
# refuses to start when `maxconn` (TRUNKFIELD_LB_MAXCONN, default 20000) needs more than the
# container's open-files limit allows (Docker's default allows it; podman's, from a lower limit,
# may not: found by tests/docker/compose_test.py). Then it takes what fits, and says so.
want=${TRUNKFIELD_LB_MAXCONN:-20000}
[[ $want =~ ^[1-9][0-9]*$ ]] || fail "TRUNKFIELD_LB_MAXCONN=$want is not a number of connections"
hard=$(ulimit -Hn)
if [[ $hard != unlimited ]] && ((want > (hard - 100) / 2)); then
    fit=$(((hard - 100) / 2))
    ((fit > 0)) || fail "the open files limit ($hard) leaves no room for connections"
    echo "haproxy-entrypoint: the open files limit ($hard) allows $fit connections, not $want (raise the container's nofile ulimit for more)" >&2
    want=$fit
fi
export TRUNKFIELD_LB_MAXCONN=$want
exec haproxy "$@"
