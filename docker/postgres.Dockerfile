# PostgreSQL 15 for the compose profile `postgres` (docker/compose.yaml, README.md "Deploy with
# Docker"): Debian 12's own postgresql-15 package, so it builds from Debian's mirrors alone. The
# database cluster is created at the first start (postgres-entrypoint.sh) in the volume on
# $PGDATA, with the role and database `trunkfield` and password authentication over the network.
#   docker build -f docker/postgres.Dockerfile -t trunkfield-postgres docker
FROM debian:12-slim
# No cluster at install time (Debian's package would make one in /var/lib/postgresql/15/main):
# the entrypoint creates it in the volume.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
    && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/no-main.conf \
    && apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /run/postgresql \
    && chown postgres:postgres /var/lib/postgresql/data /run/postgresql \
    && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data PATH=/usr/lib/postgresql/15/bin:$PATH
# A new named volume takes the ownership above, so the server never needs root.
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# Fast shutdown: SIGTERM would be a "smart" one, waiting for the game server to disconnect.
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
