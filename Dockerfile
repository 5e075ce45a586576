# Agentloom worker image. No Docker engine on the development machines: test/deploy.test.ts runs these
# build steps on the .dockerignore'd context and starts the CMD with this ENV against a real Temporal server.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.build.json && npx ts-node --transpile-only scripts/build-bundle.ts && npx ts-node --transpile-only scripts/build-cli-bundle.ts

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production LOOM_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js LOOM_STORE_DIR=/data/store
# The store defaults to that folder; set LOOM_STORE_URL=postgres://user:password@host:5432/db to share it across machines (docker-compose.yml does).
COPY --from=build /app/package.json /app/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund || npm install --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
VOLUME ["/data"]
CMD ["node", "dist/worker.js"]
