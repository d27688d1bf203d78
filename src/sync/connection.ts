import { Client, type ResponseCacheStore, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { cappedFetch, LIST_MAX_PAGES, MAX_ANSWER_BYTES } from "./answer-limits.js";
import { answeredStatus } from "./describe-error.js";
import { ownPool } from "./env-proxy.js";
import { ownSignalFetch, pooledFetch } from "./own-fetch.js";
import { ReadAnswers } from "./read-answers.js";
import { patientFetch, resentFetch } from "./sent-again.js";
import { RefusalWatch } from "./start-refusal.js";

/*
 * A connection to a server, as sync makes it: connect() builds the SDK's client over a fetch made of
 * layers, each in a module of its own, outermost first:
 *
 *   start-refusal.ts  keeps the last refusal (4xx) of the connection's start, in the server's words
 *   sent-again.ts     sends a request again after the wait a 429 or 503 asks for (patientFetch)
 *   answer-limits.ts  reads answers within their bounds: one answer, a read's share, a listing's pages
 *   sent-again.ts     sends a request again when its connection closed before any answer (resentFetch)
 *   own-fetch.ts      gives each request a signal of its own, and sends it over sync's own pool
 *   env-proxy.ts      that pool, through the environment's proxy when Node's fetch would use one
 *
 * What the rest of sync and its tests use of these modules is exported here, their one door.
 */
export {
  listWithin,
  MAX_ANSWER_BYTES,
  MAX_LISTING_BYTES,
  withAnswerLimit,
} from "./answer-limits.js";
export { type EnvProxy, proxyFor, usesEnvProxy } from "./env-proxy.js";
export { ownSignalFetch } from "./own-fetch.js";
export { RefusedAnswerError } from "./start-refusal.js";

/** How to reach a server and in which scope, as an MCP client configured for it would. */
export interface ServerAddress {
  /** The MCP endpoint (`https://skills.example.com/mcp`). */
  readonly url: URL;
  /** Sent with every request: `X-Skill-Pack` and any the user gave. */
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string;
}

/** The protocol era to speak: `auto` asks the server and takes the newest both speak. */
export type Era = "auto" | "legacy" | "modern";

export interface Connection {
  readonly client: Client;
  readonly skills: SkillsClient;
  /** The files its reads were answered with instead of the one asked for. */
  readonly readAnswers: ReadAnswers;
  close(): Promise<void>;
}

/**
 * A response cache that keeps nothing. The SDK's default keeps every answer as long as the server's
 * `ttlMs` says (up to 512 reads of up to 24 MiB each); sync reads each file once, and holds what it
 * reuses itself, within a budget.
 */
const NO_RESPONSE_CACHE: ResponseCacheStore = {
  get: () => undefined,
  set: () => 0,
  delete: () => undefined,
  evict: () => undefined,
  clear: () => undefined,
};

export async function connect(
  address: ServerAddress,
  era: Era,
  version: string,
  onWait: (seconds: number, status: number) => void = () => undefined,
): Promise<Connection> {
  const { apiKey } = address;
  const refusals = new RefusalWatch();
  // Connections of its own, ended with the client. Closing the client aborts the reads under way, but
  // fetch's shared pool keeps those it had queued, and opens a connection for each (to find it aborted)
  // whenever one of its connections closes: a run that stopped went on connecting to the server, taking
  // the file descriptors its cleanup needs. Ended, this pool opens none, and closes its idle ones.
  const pool = ownPool(process.env, process.execArgv);
  const transport = new StreamableHTTPClientTransport(address.url, {
    requestInit: { headers: headersAsBytes(address.headers) },
    fetch: refusals.watch(
      patientFetch(cappedFetch(MAX_ANSWER_BYTES, resentFetch(ownSignalFetch(pooledFetch(pool)))), onWait),
    ),
    ...(apiKey === undefined ? {} : { authProvider: { token: async () => apiKey } }),
  });
  // Whoever closes the client (a run's end, a failure, the SDK itself), the pool ends with it.
  transport.onclose = () => void pool.destroy();
  const readAnswers = new ReadAnswers();
  readAnswers.watch(transport);
  const mode = era === "modern" ? { pin: "2026-07-28" } : era;
  const client = new Client(
    { name: "skills-mcp-sync", version },
    { versionNegotiation: { mode }, listMaxPages: LIST_MAX_PAGES, responseCacheStore: NO_RESPONSE_CACHE },
  );
  try {
    await client.connect(transport);
  } catch (error) {
    await pool.destroy();
    const refusal = refusals.last;
    // The modern era's probe takes any refusal for "no modern server" and drops the status and the server's
    // words ("did not offer pinned protocol version"); the legacy era's error keeps them.
    if (refusal !== undefined && answeredStatus(error) === undefined) throw refusal;
    throw error;
  } finally {
    refusals.stop();
  }
  return {
    client,
    skills: new SkillsClient(client, { skipInvalid: true }),
    readAnswers,
    close: () => client.close(),
  };
}

/**
 * Headers as fetch can send them: it sends each character of a value as one byte and refuses any past
 * Latin-1, so a value holding one (`--pack demo/日本語`) goes as its UTF-8 bytes, which the server reads
 * as UTF-8. Other values go as they are, as every server version reads them.
 */
function headersAsBytes(headers: Readonly<Record<string, string>>): Record<string, string> {
  const latin1 = (value: string) => Buffer.from(value, "latin1").toString("latin1") === value;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      latin1(value) ? value : Buffer.from(value, "utf8").toString("latin1"),
    ]),
  );
}
