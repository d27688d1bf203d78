import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import { type Catalog, CatalogError, type Scope, SelectorError } from "./catalog/index.js";
import { blockedPortWarning, type Config, ConfigError, SHUTDOWN_GRACE_MS, USAGE } from "./config/index.js";
import { buildApp, InFlight, Readiness, shedRssWarning } from "./http/index.js";
import { LogOutput } from "./log-output.js";
import { type McpDeps, steeringFor, warmPreviews } from "./mcp/index.js";
import { endBySignal, problemInWords, STOP_SIGNALS, type SystemProblems, visible } from "./shared/index.js";
import {
  loadStartupConfig,
  mcpDepsFor,
  type Prepared,
  prepare,
  SavedIndexError,
  saveIndex,
  serverInfo,
} from "./startup/index.js";
import { serveStdio } from "./stdio/index.js";

/** The command line: config → a prepared catalog (src/startup) → a transport. Returns the exit status. */
async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  // Loaded only for `sync`, so that the server's start pays nothing for the client it does not use.
  if (argv[0] === "sync") return (await import("./sync/index.js")).runSyncCli(argv.slice(1));
  const config = loadStartupConfig(env, argv);
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (config.version) {
    process.stdout.write(`${serverInfo().version}\n`);
    return 0;
  }
  // In stdio mode stdout carries the protocol, and --steering prints its line there: logs go to stderr,
  // and so does what a dependency prints with console.log (yaml prints each token it reads when LOG_TOKENS
  // is set: 112 lines before the first answer over stdio).
  const ownsStdout = config.transport === "stdio" || config.steering;
  if (ownsStdout) for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
  // The one-shot commands write their few lines at once: queued, they were written at exit by a synchronous
  // flush that retries a closed pipe forever (`--build-index | head -1` never ended, nor on Ctrl-C).
  const oneShot = config.buildIndex || config.steering;
  const logOutput = new LogOutput(ownsStdout ? 2 : 1, oneShot, (lines) =>
    logger.warn({ lines }, "log lines dropped: the log's reader took none while they came"),
  );
  const logger = pino({ level: config.logLevel }, logOutput.destination);
  try {
    return await run(config, logger, logOutput, oneShot);
  } finally {
    // What the log still holds is written out before the process exits, whatever ended the command.
    await logOutput.end(LOG_EXIT_MS);
  }
}

/** A command of the server, once its log is made: prepares the catalog, then builds, prints or serves. */
async function run(config: Config, logger: Logger, logOutput: LogOutput, oneShot: boolean): Promise<number> {
  for (const warning of [...config.misspelledSettings, ...config.ignoredSettings]) logger.warn(warning);
  // Served, but no client built on fetch would ever reach it, and the server would log no request.
  const blocked = config.transport === "http" && !oneShot ? blockedPortWarning(config.port) : undefined;
  if (blocked !== undefined) logger.warn(blocked);
  // performance.now() counts from the start of the process, so the first mark is Node plus the imports.
  const imported = performance.now();
  // Listened for from here, not only once serving: a stop during startup ends it with 0 at once, over stdio
  // as stdin closing does. The one-shot commands keep the default (a signal ends them, src/main.ts).
  const stopped = oneShot ? new Promise<never>(() => {}) : firstStopSignal(logger, logOutput);
  const prepared = await Promise.race([prepare(config, logger), stopped]);
  if (typeof prepared === "string") {
    logger.info({ signal: prepared }, "stopped before serving");
    return 0;
  }
  const preparedAt = performance.now();
  if (config.buildIndex) {
    saveIndex(prepared, config.savedIndexFile, logger);
    return 0;
  }
  const mcp = mcpDepsFor(prepared, config, logger);

  if (config.steering) {
    process.stdout.write(`${steeringFor(mcp, narrowForSteering(prepared.catalog, config.steeringPacks))}\n`);
    return 0;
  }

  if (config.transport === "stdio") {
    // As over HTTP: a host's log panel says when the server answers, and what its start took.
    logger.info(
      { transport: "stdio", ms: Math.round(performance.now()), ...startupSplit(imported, prepared) },
      "ready",
    );
    await serveStdio({ mcp, logger, stopped });
    return 0;
  }
  return serveHttp({ config, logger, prepared, mcp, stopped, startedAt: { imported, preparedAt } });
}

interface HttpRun {
  readonly config: Config;
  readonly logger: Logger;
  readonly prepared: Prepared;
  readonly mcp: McpDeps;
  readonly stopped: Promise<NodeJS.Signals>;
  /** When the imports were done and the catalog prepared (performance.now()), for the `ready` line. */
  readonly startedAt: { readonly imported: number; readonly preparedAt: number };
}

/** Serves HTTP until a stop signal, then drains and closes; resolves with the exit status. */
async function serveHttp({ config, logger, prepared, mcp, stopped, startedAt }: HttpRun): Promise<number> {
  const { imported, preparedAt } = startedAt;
  const readiness = new Readiness();
  const app = await buildApp({
    mcp,
    logger,
    settings: config.http,
    readiness,
    unsafeSkills: prepared.unsafeSkills,
  });
  const inFlight = InFlight.watch(app.server);
  // A signal since the catalog was prepared (building the app, taking the port) still stops the start.
  const listened = await Promise.race([listen(app, config.host, config.port), stopped]);
  if (typeof listened === "string") {
    logger.info({ signal: listened }, "stopped before serving");
    return 0;
  }
  const listening = performance.now();
  logger.info(
    {
      mcp: endpointUrl(app.server.address()),
      ms: Math.round(listening),
      ...startupSplit(imported, prepared),
      listenMs: Math.round(listening - preparedAt),
    },
    "ready",
  );
  const rssWarning = shedRssWarning(config.http, process.memoryUsage.rss());
  if (rssWarning !== undefined) logger.warn(rssWarning);
  // After listening, between requests: the first previews of a large catalog find their work done.
  warmPreviews(mcp, nextTurn).then(
    () => logger.info({ ms: Math.round(performance.now() - listening) }, "previews worked out"),
    (error: unknown) => logger.error({ err: error }, "working out the previews failed"),
  );
  const signal = await stopped;
  // SIGINT (Ctrl-C at a terminal) skips the drain.
  const drainMs = signal === "SIGTERM" ? config.shutdownDrainMs : 0;
  return shutDown(signal, { app, readiness, inFlight, logger, drainMs });
}

/** What serving HTTP holds that a stop needs. */
interface HttpStop {
  readonly app: Awaited<ReturnType<typeof buildApp>>;
  readonly readiness: Readiness;
  readonly inFlight: InFlight;
  readonly logger: Logger;
  /** How long the server keeps serving with readiness failed: the drain of SIGTERM, none for SIGINT. */
  readonly drainMs: number;
}

/**
 * Readiness fails first and the server keeps serving for `drainMs`, so load balancers stop sending before
 * connections are refused; then it waits for slow clients to take the answers written whole to them (at
 * most until the grace's end closes every connection), stops accepting, finishes what is in flight, and
 * resolves with the exit status.
 */
function shutDown(
  signal: NodeJS.Signals,
  { app, readiness, inFlight, logger, drainMs }: HttpStop,
): Promise<number> {
  const signalled = performance.now();
  readiness.drain();
  logger.info(
    { signal, drainMs },
    "shutting down: readiness fails, still serving while load balancers drain",
  );
  return new Promise((resolve) => {
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
    setTimeout(async () => {
      // Closed now, their connections, which Node counts idle, would end with the answers cut short.
      const untaken = inFlight.untaken().length;
      if (untaken > 0) logger.info({ untaken }, "waiting for clients to take answers written whole");
      await inFlight.taken();
      logger.info("closing: no new connections; finishing in-flight requests");
      app.close().then(
        () => {
          // The last line of a clean stop: without it, a log ending at "closing" could be a hang.
          logger.info({ signal, ms: Math.round(performance.now() - signalled) }, "stopped");
          resolve(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          resolve(1);
        },
      );
    }, drainMs).unref();
  });
}

/**
 * The URL of the MCP endpoint on this machine, for the `ready` line: Fastify's own line names the bare
 * address, which users pasted into their clients without `/mcp`. A wildcard address is read as loopback.
 */
function endpointUrl(address: AddressInfo | string | null): string | undefined {
  if (address === null || typeof address === "string") return undefined;
  const host =
    address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/mcp`;
}

/** The parts of the start (ms), for the `ready` line. */
function startupSplit(imported: number, prepared: Prepared) {
  return {
    importMs: Math.round(imported),
    catalogMs: Math.round(prepared.ms.catalog),
    inspectionMs: Math.round(prepared.ms.inspection),
    indexMs: Math.round(prepared.ms.index),
    index: prepared.indexOrigin,
  };
}

/**
 * The first SIGTERM or SIGINT. A second one (Ctrl-C again) ends the process at once, as by default, also
 * as PID 1 (see endOnSecondSignal).
 */
function firstStopSignal(logger: Logger, logOutput: LogOutput): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      for (const each of STOP_SIGNALS) process.off(each, stop);
      endOnSecondSignal(logger, logOutput);
      resolve(signal);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, stop);
  });
}

/**
 * Ends the process on the next SIGTERM or SIGINT, saying so first: ended silently, its log stopped at
 * "shutting down" and read as a hang. The line gets at most LOG_EXIT_MS to leave; a third signal ends the
 * process at once, by src/main.ts's listener alone.
 */
function endOnSecondSignal(logger: Logger, logOutput: LogOutput): void {
  const end = (signal: NodeJS.Signals) => {
    for (const each of STOP_SIGNALS) process.off(each, end);
    logger.warn({ signal }, "stopping at once on a second stop signal; requests in flight are cut off");
    void logOutput.end(LOG_EXIT_MS).then(() => endBySignal(signal));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, end);
}

/**
 * `--steering --pack …`: the loaded catalog narrowed as an `X-Skill-Pack` header would narrow it. A selector
 * that matches nothing is a wrong command line (exit status 2, the valid selectors named), as any other
 * mistake in an option's value is; SKILL_PACKS's is a setting's, which exits 1.
 */
function narrowForSteering(catalog: Catalog, packs: readonly string[]): Scope {
  try {
    return catalog.everything.narrow(packs);
  } catch (error) {
    if (error instanceof SelectorError) throw new ConfigError(`--pack: ${error.message}`, true);
    throw error;
  }
}

/** The server could not take its address: the message says which, why, and what to set. */
class ListenError extends Error {
  override name = "ListenError";
}

/** Resolves on the event loop's next turn, once what is waiting (requests among it) has run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What the errors of listening mean there, and what to set where a setting causes them. */
const LISTEN_PROBLEMS: SystemProblems = {
  EADDRINUSE: { what: "another process listens on that port", fix: "set PORT to a free one" },
  EACCES: {
    what: "not allowed to listen there (ports below 1024 need privileges)",
    fix: "set PORT to 1024 or above",
  },
  EADDRNOTAVAIL: {
    what: "no network interface of this machine has that address",
    fix: "set HOST to one that does",
  },
  ENOTFOUND: { what: "HOST is neither an IP address nor a name this machine resolves" },
  EAI_AGAIN: { what: "HOST could not be resolved now", fix: "set it to an IP address" },
  // getaddrinfo's answer to a name no DNS could hold (longer than 255 bytes): it went out as a stack trace.
  EINVAL: {
    what: "HOST is no address or name this machine can listen on",
    fix: "set it to an IP address (0.0.0.0, ::, 127.0.0.1)",
  },
};

async function listen(app: Awaited<ReturnType<typeof buildApp>>, host: string, port: number): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    const problem = problemInWords(error, LISTEN_PROBLEMS);
    if (problem === undefined) throw error;
    await app.close();
    throw new ListenError(`Cannot listen on ${host}:${port}: ${problem}.`);
  }
}

/** How long an exit waits for its log's reader to take the last lines. */
const LOG_EXIT_MS = 500;

main(process.argv.slice(2), process.env).then(process.exit, (error: unknown) => {
  const known =
    error instanceof ConfigError ||
    error instanceof CatalogError ||
    error instanceof SavedIndexError ||
    error instanceof ListenError;
  // One line, as the scripts write it: a value given in a setting may hold a line break or an escape.
  const said = known ? visible(error.message) : String((error as Error).stack ?? error);
  process.stderr.write(`skills-mcp: ${said}\n`);
  process.exit(error instanceof ConfigError && error.usage ? 2 : 1);
});
