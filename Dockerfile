# sched as a container: the server and the `sched` command, built from this checkout.
#   docker build -t sched .            (or podman build)
#   docker run -p 8080:8080 -v sched-data:/data sched
# With DATABASE_URL unset the server runs its embedded PostgreSQL with its data in the /data volume;
# compose.yaml shows it beside a PostgreSQL service, with the API and the workers as separate processes.
# NODE_IMAGE lets a machine that cannot pull the official image build on a local stand-in
# (scripts/container/local-base.sh makes one from Debian's packages).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g --no-audit --no-fund --loglevel=error pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile --reporter=append-only \
 && pnpm run build \
 && pnpm --filter @sched/server pack --pack-destination /out \
 && pnpm --filter @sched/cli pack --pack-destination /out

FROM ${NODE_IMAGE}
COPY --from=build /out/ /tmp/sched/
RUN npm install -g --no-audit --no-fund --loglevel=error /tmp/sched/*.tgz \
 && rm -rf /tmp/sched /root/.npm \
 && mkdir -p /data && chown node:node /data
USER node
WORKDIR /home/node
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SCHED_DATA_DIR=/data \
    SCARF_ANALYTICS=false
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["sched", "serve"]
