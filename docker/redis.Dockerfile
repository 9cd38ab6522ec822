# Redis for the compose profile `cluster` (docker/compose.yaml, docs/OPERATING.md "Several
# nodes"): the nodes' bus, Debian 12's own redis-server package. Only a fast path between the
# nodes that may be lost at any time: the games are in PostgreSQL, so nothing is saved here (no
# RDB snapshots, no append-only file) and there is no volume. Reachable only on the compose
# network (no published port), hence no protected mode.
#   docker build -f docker/redis.Dockerfile -t trunkfield-redis docker
FROM debian:12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/*
# The package's user; with saving off, the working directory is never written.
USER redis
WORKDIR /var/lib/redis
EXPOSE 6379
ENTRYPOINT ["redis-server"]
CMD ["--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
