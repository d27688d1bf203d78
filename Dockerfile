# syntax=docker/dockerfile:1
# skills-mcp: the server and the skills pinned in skills.toml, baked in at build time.
#   docker build -t skills-mcp .
#   docker build --build-arg SKILLS_MANIFEST=mirror.toml -t skills-mcp .   (another manifest at the context root)
#   docker build --build-arg ALLOW_UNSAFE_SKILLS=1 -t skills-mcp .          (build despite a high audit finding)

# Every dependency, from the lockfile: used to compile the server and to run the fetcher. No install
# scripts: nothing the image runs needs one (package.json's allowScripts denies them outside the image too).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund

# The pinned skills. This stage sees only the dependencies, the fetcher and the manifest (and src/shared/,
# the one folder of src/ the fetcher imports, whose files import only Node and one another), so a change to the server never refetches skills; the cache mount keeps a bare mirror per source, so a repin fetches only
# what is new. Locked: a multi-platform build runs this stage once per platform, at once, and two fetches
# cannot share a git store. So a lock file git left there is a stopped build's (cancelled mid-fetch): it
# would fail every later build, and is removed.
FROM node:24-bookworm AS skills
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY scripts/fetch-skills ./scripts/fetch-skills
COPY src/shared ./src/shared
ARG SKILLS_MANIFEST=skills.toml
COPY ${SKILLS_MANIFEST} ./skills.toml
RUN --mount=type=cache,target=/var/cache/skills-mcp,sharing=locked \
    find /var/cache/skills-mcp -name '*.lock' -type f -delete && \
    npm run fetch-skills -- --manifest skills.toml --out /skills --cache /var/cache/skills-mcp || { \
      echo "The fetch above failed. Where the build cannot reach a source's repository (GitHub, by default), build from mirrors it can reach: --build-arg SKILLS_MANIFEST=mirror.toml (docs/deployment.md, Building without GitHub)" >&2; \
      exit 1; }

# The audit of the fetched skills (docs/audit.md), printed in the build log; a high finding fails the build
# unless ALLOW_UNSAFE_SKILLS=1. It needs the server's code, so it runs here and not in the skills stage: a
# change to the server reruns this audit (seconds), never the fetch.
FROM deps AS audit
COPY tsconfig.json ./
COPY src ./src
COPY scripts/audit-skills.ts scripts/audit-skills-run.ts scripts/audit-markdown.ts scripts/closed-output.ts ./scripts/
COPY --from=skills /skills /skills
ARG ALLOW_UNSAFE_SKILLS=
RUN case "$ALLOW_UNSAFE_SKILLS" in \
      1) fail_on=never ;; \
      ""|0) fail_on=high ;; \
      *) echo "ALLOW_UNSAFE_SKILLS must be 1, or 0 or left out; got \"$ALLOW_UNSAFE_SKILLS\"" >&2; exit 2 ;; \
    esac; \
    npm run --silent audit-skills -- /skills --fail-on "$fail_on" || { \
      echo "A high audit finding above fails the build: fix or unpin the skill, or build with --build-arg ALLOW_UNSAFE_SKILLS=1 (the server still leaves the skill out unless UNSAFE_SKILLS=serve)" >&2; \
      exit 1; }

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN npm run build

# Debian's tini, the image's PID 1 (see the ENTRYPOINT). Installed here, so that the runtime stage gets its
# static build alone: no apt lists, no dpkg record, nothing that depends on the runtime's libraries.
FROM node:24-bookworm-slim AS init
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*

# The bundled server (its dependencies inside it, their licenses beside it) and the skills: no node_modules,
# no git, no npm cache.
FROM node:24-bookworm-slim AS runtime
COPY --from=init /usr/bin/tini-static /usr/bin/tini
ENV NODE_ENV=production SKILLS_DIR=/skills PORT=8000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
# From the audit stage, so that no image is built from skills the audit did not pass.
COPY --from=audit /skills /skills
# What a start works out (each SKILL.md read, every skill inspected, the search index), saved once here
# rather than worked out at every start: at 10,000 skills a start without it takes some 5 times one with it,
# some 5 s against under 1 s (docs/skill-packs.md, A saved search index):
# a server whose skills still match it loads it; one with other skills (SKILL_PACKS) builds its own.
RUN ["node", "dist/main.js", "--build-index"]
# Node's compile cache, written below and read at every start: the imports are a third of a start on a
# saved index. Set only after --build-index, which runs as root: Node keeps a cache per user, and root's
# (1.5 MB) would ship unread.
ENV NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN install -d -o 1000 "$NODE_COMPILE_CACHE"
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 1000
# Node keeps a compile cache per user, so the server's user writes it: --version loads every module a start
# loads (imports 9% faster, a start on 10k skills 3%: docs/performance.md). At run time the root
# filesystem may be read-only: the cache is read, and nothing more is written.
RUN ["node", "dist/main.js", "--version"]
EXPOSE 8000
# The start period matches the Kubernetes startupProbe's 120 s: 50k skills mounted without a saved index take
# some 40 s to start, which 10 s and three retries called unhealthy. A healthy answer ends it at once.
# It asks where the server listens: HOST itself, or loopback for a wildcard (0.0.0.0, ::); 127.0.0.1 alone
# called a server on HOST=::1 or on one address of the host network unhealthy while it served.
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 \
  CMD ["node", "-e", "const h = (process.env.HOST ?? '').trim(); const host = h === '' || h === '0.0.0.0' ? '127.0.0.1' : h === '::' ? '[::1]' : h.includes(':') ? `[${h}]` : h; fetch(`http://${host}:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini is PID 1 and passes every signal on to node, which handles SIGTERM itself: in-flight requests finish,
# then it exits. node as PID 1 lost a signal sent within its own first tens of ms (the kernel spares a PID 1
# a signal's default action, and node had no handler yet): the server started and served on, and a pod
# deleted then waited its whole grace for SIGKILL (docs/deployment.md, HTTP). Under tini such a signal ends
# node as it ends any process, and tini exits with node's status. -s: where tini is not PID 1 (`docker run
# --init`, a pod sharing its process namespace) it still reaps, and does not warn. An entrypoint, so that
# arguments go to skills-mcp: `docker run … skills-mcp --stdio`, `… skills-mcp sync <url> --to /out`.
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "node", "dist/main.js"]
