#!/usr/bin/env node
import { createRequire } from "node:module";
import { pino } from "pino";
import {
  type Catalog,
  CatalogError,
  KnownDocuments,
  type LoadedCatalog,
  loadCatalog,
  readSkillDocument,
  type Scope,
  SelectorError,
  type Skill,
} from "./catalog/index.js";
import { type Config, ConfigError, loadConfig, SHUTDOWN_GRACE_MS, USAGE } from "./config/index.js";
import { buildApp, InFlight, Readiness } from "./http/index.js";
import { type Inspection, inspectCatalog, withoutUnsafe } from "./inspection/index.js";
import { buildMcpDeps, type McpDeps, type ServerInfo, steeringFor } from "./mcp/index.js";
import { buildIndex, type SearchIndex } from "./search/index.js";
import { SAVED_PARTS, SavedIndexError, SavedStart, saveIndex as writeIndex } from "./startup/saved.js";
import { serveStdio } from "./stdio/index.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const info: ServerInfo = { name: "skills-mcp", version };

/** The composition root: config → catalog → index → transport. Returns the exit status. */
async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  // Loaded only for `sync`, so that the server's start pays nothing for the client it does not use.
  if (argv[0] === "sync") return (await import("./sync/index.js")).runSyncCli(argv.slice(1));
  const config = loadConfig(env, argv);
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (config.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  // In stdio mode stdout carries the protocol, and --steering prints its line there: logs go to stderr.
  const logger = pino(
    { level: config.logLevel },
    pino.destination({ dest: config.transport === "stdio" || config.steering ? 2 : 1, sync: false }),
  );
  // performance.now() counts from the start of the process, so the first mark is Node plus the imports.
  const imported = performance.now();
  if (config.buildIndex) {
    await saveIndex(config, load(config, KnownDocuments.fromBytes(undefined), logger), logger);
    return 0;
  }
  // The bundled examples never have a saved index (--build-index refuses to write one among them).
  const saved =
    config.skillsDirOrigin === "examples"
      ? SavedStart.NOTHING
      : SavedStart.read(config.savedIndexFile, logger);
  const loadedCatalog = load(config, saved.documents(), logger);
  const loaded = performance.now();
  const inspection = await inspect(loadedCatalog, saved.inspection(), logger);
  const { catalog, unsafeSkills } = servedCatalog(loadedCatalog.catalog, inspection, config, logger);
  if (catalog.everything.skills.length === 0) {
    throw new CatalogError(
      "No skill left to serve: a high finding of the audit makes every skill unsafe (the warnings above name " +
        "them; npm run audit-skills explains, and UNSAFE_SKILLS=serve serves them all the same)",
    );
  }
  const inspected = performance.now();
  const { index, origin } = startIndex(saved, catalog.everything.skills, config, logger);
  const indexed = performance.now();
  const mcp = mcpDeps(catalog, index, inspection, config, logger);

  if (config.steering) {
    process.stdout.write(`${steeringFor(mcp, narrowForSteering(catalog, config.steeringPacks))}\n`);
    return 0;
  }

  if (config.transport === "stdio") {
    await serveStdio({ mcp, logger });
    return 0;
  }

  const readiness = new Readiness();
  const app = await buildApp({ mcp, logger, settings: config.http, readiness, unsafeSkills });
  const inFlight = InFlight.watch(app.server);
  await listen(app, config.host, config.port);
  const listening = performance.now();
  logger.info(
    {
      ms: Math.round(listening),
      importMs: Math.round(imported),
      catalogMs: Math.round(loaded - imported),
      inspectionMs: Math.round(inspected - loaded),
      indexMs: Math.round(indexed - inspected),
      index: origin,
      listenMs: Math.round(listening - indexed),
    },
    "ready",
  );
  return new Promise((resolve) => {
    /**
     * SIGTERM: readiness fails first and the server keeps serving for the drain time, so load
     * balancers stop sending before connections are refused; then it stops accepting, finishes what is
     * in flight, and exits. SIGINT (Ctrl-C at a terminal) skips the drain.
     */
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      const drainMs = signal === "SIGTERM" ? config.shutdownDrainMs : 0;
      readiness.drain();
      logger.info(
        { signal, drainMs },
        "shutting down: readiness fails, still serving while load balancers drain",
      );
      setTimeout(() => {
        const answering = inFlight.answering();
        if (answering > 0) {
          logger.error({ answering }, "in-flight requests did not finish in time; exiting anyway");
          resolve(1);
          return;
        }
        // What is left waits on clients that never sent their whole request (or never read their answer):
        // not the server's failure, so the close that ends below exits 0.
        logger.warn("closing the connections of clients that never finished their requests");
        app.server.closeAllConnections();
      }, drainMs + SHUTDOWN_GRACE_MS).unref();
      setTimeout(() => {
        logger.info("closing: no new connections; finishing in-flight requests");
        app.close().then(
          () => resolve(0),
          (error: unknown) => {
            logger.error({ err: error }, "shutdown failed");
            resolve(1);
          },
        );
      }, drainMs).unref();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

function load(config: Config, known: KnownDocuments, logger: pino.Logger): LoadedCatalog {
  if (config.skillsDirOrigin === "examples") {
    logger.info(
      { skillsDir: config.skillsDir },
      "no SKILLS_DIR and no ./skills: serving the bundled examples",
    );
  }
  const started = performance.now();
  const loaded = loadCatalog(config.skillsDir, { packs: config.skillPacks, known });
  const { catalog, issues } = loaded;
  for (const issue of issues) logger.warn(issue, `${issue.path}: ${issue.reason}`);
  logger.info(
    {
      skillsDir: config.skillsDir,
      packs: catalog.everything.packs.map((pack) => pack.name),
      skills: catalog.everything.skills.length,
      skipped: issues.filter((issue) => issue.severity === "skipped").length,
      ms: Math.round(performance.now() - started),
    },
    "catalog loaded",
  );
  return loaded;
}

/**
 * Every skill's files read once (or taken from the saved index while they have not changed): the audit's
 * high findings in each, and the Skills extension's entry of each, with its digests.
 */
async function inspect(
  { catalog, frontmatters }: LoadedCatalog,
  saved: Uint8Array | undefined,
  logger: pino.Logger,
): Promise<Inspection> {
  const started = performance.now();
  const run = await inspectCatalog(catalog.everything.skills, saved, { frontmatters });
  if (run.savedProblem !== undefined) {
    logger.warn({ problem: run.savedProblem }, `saved inspection not used: ${run.savedProblem}`);
  }
  logger.info(
    {
      inspected: run.inspected,
      reused: run.reused,
      peakBytes: run.peakBytes,
      ms: Math.round(performance.now() - started),
    },
    "skills inspected",
  );
  return run.inspection;
}

/**
 * The catalog as it is served: less the skills a high finding of the audit makes unsafe, unless
 * UNSAFE_SKILLS=serve, with one warning for each (its file, line and rule). A skill the extension cannot
 * carry is said once too; the tools still serve it.
 */
function servedCatalog(
  loaded: Catalog,
  inspection: Inspection,
  config: Config,
  logger: pino.Logger,
): { catalog: Catalog; unsafeSkills: { leftOut: number; served: number } } {
  const unsafe = inspection.unsafe();
  for (const { skill, findings } of unsafe) {
    const [first] = findings;
    const where = first ? `${first.path}:${first.line}: ${first.rule}` : "";
    const what = config.serveUnsafeSkills
      ? "served although unsafe (UNSAFE_SKILLS=serve)"
      : "left out as unsafe";
    logger.warn(
      { skill: skill.id, finding: first, findings: findings.length },
      `${skill.id}: ${what}: ${where}`,
    );
  }
  const catalog = config.serveUnsafeSkills ? loaded : withoutUnsafe(loaded, inspection);
  for (const skill of catalog.everything.skills) {
    const { leftOut } = inspection.of(skill);
    if (leftOut === undefined) continue;
    logger.warn(
      { skill: skill.id, reason: leftOut },
      `${skill.id}: left out of the Skills extension (the tools serve it): ${leftOut}`,
    );
  }
  const count = config.serveUnsafeSkills
    ? { leftOut: 0, served: unsafe.length }
    : { leftOut: unsafe.length, served: 0 };
  return { catalog, unsafeSkills: count };
}

/** `--steering --pack …`: the loaded catalog narrowed as an `X-Skill-Pack` header would narrow it. */
function narrowForSteering(catalog: Catalog, packs: readonly string[]): Scope {
  try {
    return catalog.everything.narrow(packs);
  } catch (error) {
    if (error instanceof SelectorError) throw new CatalogError(`--pack: ${error.message}`);
    throw error;
  }
}

function mcpDeps(
  catalog: Catalog,
  index: SearchIndex,
  inspection: Inspection,
  config: Config,
  logger: pino.Logger,
): McpDeps {
  const loaded = new Set(catalog.everything.packs.map((pack) => pack.name));
  for (const name of config.packDescriptions.keys()) {
    if (!loaded.has(name)) {
      logger.warn({ pack: name }, `PACK_DESCRIPTIONS describes ${name}, which is not a pack loaded here`);
    }
  }
  return buildMcpDeps({
    info,
    catalog,
    index,
    inspection,
    prompts: config.prompts,
    catalogPreview: config.catalogPreview,
    packDescriptions: config.packDescriptions,
    onInternalError: (error, tool) => logger.error({ err: error, tool }, "tool failed"),
    onWarning: (warning) => logger.warn(warning, `Skills extension: ${warning.path}: ${warning.message}`),
    onResourceWarning: ({ skill, reason }) =>
      logger.warn({ skill: skill?.id }, skill ? `${skill.id}: ${reason}` : reason),
  });
}

/**
 * The saved search index when it fits the catalog (built from exactly these skills, SKILL.md sizes and
 * times included, by this format and ranking), else one built now. Says in the log which, and why.
 */
function startIndex(
  saved: SavedStart,
  skills: readonly Skill[],
  config: Config,
  logger: pino.Logger,
): { index: SearchIndex; origin: "loaded" | "built" } {
  const started = performance.now();
  const file = config.savedIndexFile;
  const loaded = saved.search(skills);
  if (loaded?.ok) {
    const ms = Math.round(performance.now() - started);
    logger.info(
      { file, bytes: saved.bytes, skills: skills.length, ms },
      "search index loaded from the saved index",
    );
    return { index: loaded.index, origin: "loaded" };
  }
  if (loaded !== undefined) {
    // An outdated index is what editing a skill or narrowing SKILL_PACKS leaves behind; a damaged one is not.
    logger[loaded.outdated ? "info" : "warn"](
      { file, problem: loaded.problem },
      `saved search index not used, building the index: ${loaded.problem}`,
    );
  }
  const index = buildIndex(skills, readSkillDocument);
  logger.info({ skills: skills.length, ms: Math.round(performance.now() - started) }, "search index built");
  return { index, origin: "built" };
}

/**
 * `--build-index`: builds the search index and inspects every skill, and saves both whole or not at all
 * (written aside, then renamed), removing what an earlier run killed before its rename left aside.
 */
async function saveIndex(config: Config, loaded: LoadedCatalog, logger: pino.Logger): Promise<void> {
  const started = performance.now();
  const file = config.savedIndexFile;
  const inspection = await inspect(loaded, undefined, logger);
  // The search index of the skills the server will serve, as it will serve them. None left is no reason
  // to fail here: an image built with ALLOW_UNSAFE_SKILLS=1 may be meant to run with UNSAFE_SKILLS=serve,
  // and a server that is not says so when it starts.
  const served = servedCatalog(loaded.catalog, inspection, config, logger).catalog;
  const index = buildIndex(served.everything.skills, readSkillDocument);
  const { bytes, removed } = writeIndex(file, { served, documents: loaded.documents, index, inspection });
  if (removed.length > 0) {
    logger.info({ removed }, "removed the temporary files of an earlier --build-index that did not finish");
  }
  logger.info(
    {
      file,
      bytes,
      skills: served.everything.skills.length,
      parts: SAVED_PARTS,
      ms: Math.round(performance.now() - started),
    },
    "index saved",
  );
}

/** The server could not take its address: the message says which, why, and what to set. */
class ListenError extends Error {
  override name = "ListenError";
}

/** What a setting can do about the errors of listening that it causes. */
const LISTEN_PROBLEMS: Readonly<Record<string, string>> = {
  EADDRINUSE: "another process listens on that port; set PORT to a free one",
  EACCES: "not allowed to listen there (ports below 1024 need privileges); set PORT to 1024 or above",
  EADDRNOTAVAIL: "no network interface of this machine has that address; set HOST to one that does",
  ENOTFOUND: "HOST is neither an IP address nor a name this machine resolves",
  EAI_AGAIN: "HOST could not be resolved now; set it to an IP address",
};

async function listen(app: Awaited<ReturnType<typeof buildApp>>, host: string, port: number): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === undefined ? undefined : LISTEN_PROBLEMS[code];
    if (problem === undefined) throw error;
    await app.close();
    throw new ListenError(`Cannot listen on ${host}:${port}: ${problem} (${code}).`);
  }
}

main(process.argv.slice(2), process.env).then(
  (status) => process.exit(status),
  (error: unknown) => {
    const known =
      error instanceof ConfigError ||
      error instanceof CatalogError ||
      error instanceof SavedIndexError ||
      error instanceof ListenError;
    process.stderr.write(`skills-mcp: ${known ? error.message : String((error as Error).stack ?? error)}\n`);
    process.exit(1);
  },
);
