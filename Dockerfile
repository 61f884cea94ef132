# syntax=docker/dockerfile:1
# Signalbox from the tarballs `npm run pack` makes, installed with runtime dependencies only:
# the same commands `npm run test:package` runs and CI checks. Not built on the machine this was
# written on (no container registry reachable there), so untried as an image.
#
#   docker build -t signalbox .                         the flag service, web UI and signalbox command
#   docker build --target proxy -t signalbox-proxy .    the proxy for browser and mobile SDKs

FROM node:22-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run pack

FROM node:22-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
RUN --mount=type=bind,from=build,source=/src/artifacts,target=/artifacts \
    echo '{ "private": true }' > package.json \
    && npm install --omit=dev --no-audit --no-fund /artifacts/*.tgz \
    && npm cache clean --force \
    && mkdir /data && chown node:node /data
ENV PATH=/app/node_modules/.bin:$PATH
USER node
VOLUME /data

FROM runtime AS proxy
# The last good configuration, served at start while the flag service is down.
ENV PORT=3000 BACKUP_DIR=/data/proxy
EXPOSE 3000
# slim has no curl: node's own fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/proxy/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["signalbox-proxy"]

# Last, so a build without --target makes the flag service.
FROM runtime AS server
ENV PORT=4242
EXPOSE 4242
# The first start on the embedded database lays out its data folder: a minute on a slow disk.
HEALTHCHECK --interval=30s --timeout=5s --start-period=2m \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["signalbox-server"]
