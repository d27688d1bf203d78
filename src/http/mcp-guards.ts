import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { HttpSettings } from "../config/index.js";
import { hostGuard, registerApiKeys, registerCors } from "./guard.js";
import { batchOverRateLimit, NOT_ALLOWED, type Refusal, refuse } from "./mcp-refusals.js";

/** Seconds a shed client is told to wait. */
const SHED_RETRY_AFTER_SECONDS = 5;
const MIB = 1024 * 1024;

/** What @fastify/under-pressure last sampled, which its limits are checked against. */
interface LoadSample {
  readonly eventLoopDelay: number;
  readonly eventLoopUtilized: number;
  readonly rssBytes: number;
}

/** A shedding limit that a sample passes: its setting, the limit it sets, and what was measured. */
interface LimitPassed {
  readonly setting: "SHED_EVENT_LOOP_DELAY_MS" | "SHED_EVENT_LOOP_UTILIZATION" | "SHED_RSS_MB";
  readonly limit: number;
  readonly measured: number;
}

/**
 * The limits `sample` passes, as @fastify/under-pressure compares them: a shed request's warning names
 * them, since three settings shed alike and the 503 says nothing of which.
 */
export function limitsPassed(sample: LoadSample, settings: HttpSettings): LimitPassed[] {
  const passed: LimitPassed[] = [];
  const delay = settings.shedEventLoopDelayMs;
  if (delay > 0 && sample.eventLoopDelay > delay) {
    passed.push({
      setting: "SHED_EVENT_LOOP_DELAY_MS",
      limit: delay,
      measured: Math.round(sample.eventLoopDelay),
    });
  }
  if (settings.shedRssBytes > 0 && sample.rssBytes > settings.shedRssBytes) {
    passed.push({
      setting: "SHED_RSS_MB",
      limit: settings.shedRssBytes / MIB,
      measured: Math.round(sample.rssBytes / MIB),
    });
  }
  const utilization = settings.shedEventLoopUtilization;
  if (utilization > 0 && sample.eventLoopUtilized > utilization) {
    passed.push({
      setting: "SHED_EVENT_LOOP_UTILIZATION",
      limit: utilization,
      measured: Math.round(sample.eventLoopUtilized * 100) / 100,
    });
  }
  return passed;
}

/**
 * A warning when SHED_RSS_MB is below what the server holds once ready, `rssBytes`: every /mcp request
 * would then be shed for good, while /health, which is not shed, keeps the replica in its Service.
 */
export function shedRssWarning(settings: HttpSettings, rssBytes: number): string | undefined {
  const limit = settings.shedRssBytes;
  if (limit === 0 || rssBytes <= limit) return undefined;
  const held = Math.ceil(rssBytes / MIB);
  return (
    `SHED_RSS_MB ${limit / MIB} is below the ${held} MiB the server holds once ready: /mcp answers every ` +
    `request 503 until it is raised; set it well above ${held}, and below the container's memory limit`
  );
}

/**
 * Charges a batch of `messages` its messages but the first (the rate limit counted that one) against the
 * client's limit: the refusal once over it, else undefined.
 */
type BatchCharge = (request: FastifyRequest, messages: number) => Promise<Refusal | undefined>;

/**
 * The guards `/mcp` is behind, each only when its setting asks for it, in the order a request meets them,
 * before its body is read: the host check, CORS, load shedding, the rate limit and the API key. What
 * charges a batch its other messages against the rate limit, once its body is read, when there is one.
 */
export async function registerMcpGuards(
  app: FastifyInstance,
  settings: HttpSettings,
): Promise<BatchCharge | undefined> {
  if (settings.allowedHosts.length > 0) app.addHook("onRequest", hostGuard(settings.allowedHosts));
  if (settings.allowedOrigins.length > 0) await registerBrowserOrigins(app, settings.allowedOrigins);
  if (
    settings.shedEventLoopDelayMs > 0 ||
    settings.shedEventLoopUtilization > 0 ||
    settings.shedRssBytes > 0
  ) {
    await registerShedding(app, settings);
  }
  const chargeBatch =
    settings.rateLimitPerMinute > 0 ? await registerRateLimit(app, settings.rateLimitPerMinute) : undefined;
  if (settings.apiKeys.length > 0) await registerApiKeys(app, settings.apiKeys);
  return chargeBatch;
}

/**
 * CORS for the origins listed. @fastify/cors answers an OPTIONS to any path, and one that is no preflight
 * (no Origin or no Access-Control-Request-Method) with its own 400 in plain text. Only /mcp takes a
 * browser's requests: an OPTIONS to any other path is answered as without CORS (a 404 naming the routes),
 * and one to /mcp that is no preflight is a method /mcp does not take.
 */
async function registerBrowserOrigins(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  app.addHook("onRequest", (request, reply, done) => {
    if (request.method !== "OPTIONS") {
      done();
      return;
    }
    if (request.routeOptions.url !== "/mcp") {
      reply.callNotFound();
      return;
    }
    const { origin, "access-control-request-method": asked } = request.headers;
    if (origin && asked) {
      done();
      return;
    }
    refuse(reply, NOT_ALLOWED);
  });
  await registerCors(app, origins);
}

async function registerShedding(app: FastifyInstance, settings: HttpSettings): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: settings.shedEventLoopDelayMs,
    maxEventLoopUtilization: settings.shedEventLoopUtilization,
    eventLoopUtilizationMode: "interval",
    maxRssBytes: settings.shedRssBytes,
    retryAfter: SHED_RETRY_AFTER_SECONDS,
    message: `Server overloaded: retry in ${SHED_RETRY_AFTER_SECONDS} seconds.`,
  });
}

/**
 * The rate limit of `perMinute` requests. The plugin counts one per request, before the body is read; a
 * batch is charged its other messages once read, in the plugin's own counts, or batches of a hundred would
 * cost a client a hundredth of what their messages cost.
 */
async function registerRateLimit(app: FastifyInstance, perMinute: number): Promise<BatchCharge> {
  // Headers only on the 429, so that answers to /mcp keep the headers they have always had.
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    addHeadersOnExceeding: {
      "x-ratelimit-limit": false,
      "x-ratelimit-remaining": false,
      "x-ratelimit-reset": false,
    },
  });
  const count = app.createRateLimit();
  return async (request, messages) => {
    for (let counted = 1; counted < messages; counted++) {
      const limit = await count(request);
      if (!limit.isAllowed && limit.isExceeded) {
        return batchOverRateLimit(limit.ttlInSeconds, messages, perMinute);
      }
    }
    return undefined;
  };
}
