# syntax=docker/dockerfile:1
# skills-mcp: the server and the skills pinned in skills.toml, baked in at build time.
#   docker build -t skills-mcp .
#   docker build --build-arg SKILLS_MANIFEST=mirror.toml -t skills-mcp .   (another manifest at the context root)

# Every dependency, from the lockfile: used to compile the server and to run the fetcher. No install
# scripts: nothing the image runs needs one, and native builds (a benchmark's SQLite) need a toolchain.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund

# The pinned skills. This stage sees only the dependencies, the fetcher and the manifest, so a change to the
# server never refetches skills; the cache mount keeps a bare mirror per source, so a repin fetches only
# what is new.
FROM node:24-bookworm AS skills
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY scripts/fetch-skills ./scripts/fetch-skills
ARG SKILLS_MANIFEST=skills.toml
COPY ${SKILLS_MANIFEST} ./skills.toml
RUN --mount=type=cache,target=/var/cache/skills-mcp \
    npm run fetch-skills -- --manifest skills.toml --out /skills --cache /var/cache/skills-mcp

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Production dependencies, the compiled server and the skills: no git, no dev dependencies, no npm cache.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production SKILLS_DIR=/skills PORT=8000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=skills /skills /skills
# The search index, built once here rather than at every start (at 10,000 skills, 2 s of a 3 s start):
# a server whose skills still match it loads it; one with other skills (SKILL_PACKS) builds its own.
RUN ["node", "dist/main.js", "--build-index"]
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 1000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: in-flight requests finish, then it exits.
CMD ["node", "dist/main.js"]
