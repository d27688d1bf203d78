import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { HttpSettings } from "../config/index.js";
import { hostGuard, registerApiKeys, registerCors } from "./guard.js";
import { batchOverRateLimit, NOT_ALLOWED, type Refusal, refuse } from "./mcp-refusals.js";

/** Seconds a shed client is told to wait. */
const SHED_RETRY_AFTER_SECONDS = 5;

/**
 * Charges a batch of `messages` its messages but the first (the rate limit counted that one) against the
 * client's limit: the refusal once over it, else undefined.
 */
export type BatchCharge = (request: FastifyRequest, messages: number) => Promise<Refusal | undefined>;

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
