# syntax=docker/dockerfile:1
# Tasklane: the API server and the web app it serves, on PGlite (volume /data) or PostgreSQL
# (DATABASE_URL). Build: docker build -t tasklane .   Run: see compose.yaml and docs/deploy.md.

ARG NODE_IMAGE=node:20-bookworm-slim
ARG PNPM_VERSION=12.21.0

# Production dependencies only, from the lockfile (patches applied by pnpm).
FROM ${NODE_IMAGE} AS deps
ARG PNPM_VERSION
WORKDIR /app
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches/ patches/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/db/package.json packages/db/
COPY packages/schemas/package.json packages/schemas/
COPY packages/sdk/package.json packages/sdk/
COPY bench/package.json bench/
RUN npx -y "pnpm@${PNPM_VERSION}" install --frozen-lockfile --prod --ignore-scripts

# Everything, to build the server bundle and the web app.
FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION
WORKDIR /app
COPY . .
RUN npx -y "pnpm@${PNPM_VERSION}" install --frozen-lockfile \
 && npx -y "pnpm@${PNPM_VERSION}" turbo run build --filter=@tasklane/server --filter=@tasklane/web

# The runtime: the built files in the workspace's layout (the server finds apps/web/dist and the
# migrations in packages/db/drizzle by relative path), production dependencies, no build tools.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules node_modules/
COPY --from=deps --chown=root:root /app/apps/server/node_modules apps/server/node_modules/
COPY --from=deps --chown=root:root /app/packages/db/node_modules packages/db/node_modules/
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/apps/server/package.json apps/server/
COPY --from=build --chown=root:root /app/apps/server/dist apps/server/dist/
COPY --from=build --chown=root:root /app/apps/web/dist apps/web/dist/
COPY --from=build --chown=root:root /app/packages/db/package.json packages/db/
COPY --from=build --chown=root:root /app/packages/db/drizzle packages/db/drizzle/
# The image's files belong to root; the server runs as the unprivileged `node` user and writes
# only to /data (PGlite's data directory and the generated JWT secret).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "apps/server/dist/main.mjs"]
CMD ["serve"]
