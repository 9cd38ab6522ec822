# The load balancer of the compose profile `cluster` (docker/compose.yaml, docs/OPERATING.md
# "Several nodes"): Debian 12's haproxy (2.6) with docker/haproxy.cfg, and openssl for the
# self-signed certificate docker/haproxy-entrypoint.sh makes when no real one is given.
#   docker build -f docker/haproxy.Dockerfile -t trunkfield-haproxy docker
FROM debian:12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends haproxy openssl \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /certs
COPY haproxy.cfg /etc/haproxy/haproxy.cfg
COPY haproxy-entrypoint.sh /usr/local/bin/haproxy-entrypoint.sh
# The self-signed certificate, kept across restarts (or the operator's folder, read-only use).
VOLUME /certs
# 80: redirects to 443; 443: HTTPS and WebSocket (wss); 8081: the TCP protocol, plain.
EXPOSE 80 443 8081
# Starts as root to bind 80 and 443 and read the key; haproxy.cfg's `user haproxy` then drops
# the privileges. Arguments replace CMD and go to haproxy.
ENTRYPOINT ["/usr/local/bin/haproxy-entrypoint.sh"]
CMD ["-db", "-f", "/etc/haproxy/haproxy.cfg"]
