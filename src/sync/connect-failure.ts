import { ProtocolError, UnauthorizedError } from "@modelcontextprotocol/client";
import { quoted } from "../shared/index.js";
import { type EnvProxy, proxyFor, RefusedAnswerError, type ServerAddress } from "./connection.js";
import { answeredStatus, describeError } from "./describe-error.js";
import { SyncError } from "./options.js";
import { outOfFilesHint } from "./out-of-files.js";

/**
 * Why the server at `address` could not be connected to, as a user can act on it: a scope it refused,
 * a key it wants or refused, a URL that should be plain HTTP, the environment's proxy that failed.
 */
export function connectionFailure(address: ServerAddress, error: unknown): SyncError {
  const server = address.url.href;
  const why = describeError(error);
  const refusedScope = scopeRefusal(address, error, why);
  if (refusedScope !== undefined) return new SyncError(`${server} refused ${refusedScope}`);
  // An answer of the server's (a status through the tunnel, a JSON-RPC error) names no proxy: it worked.
  const proxy = serverAnswered(error, why) ? undefined : proxyFor(address.url, process.env, process.execArgv);
  const found = (proxy === undefined ? undefined : proxyHint(proxy, why)) ?? directHint(address, error, why);
  // Through a proxy, a failure with no answer and no other sign may be the proxy's as well as the server's.
  const hint = found === "" && proxy !== undefined ? checkTheProxy(proxy) : found;
  const through = proxy === undefined ? "" : throughThe(proxy);
  // A hint follows the server's own sentence, whose full stop would stand before its semicolon.
  return new SyncError(
    `cannot connect to ${server}${through}: ${hint === "" ? why : why.replace(/\.$/, "")}${hint}`,
  );
}

/**
 * What to check of the server itself, told by `why`: a key it wants or refused, a URL that should be plain
 * HTTP or name the MCP endpoint, a port nothing listens at or fetch refuses; empty when nothing tells.
 */
function directHint(address: ServerAddress, error: unknown, why: string): string {
  // An https URL to a server that speaks plain HTTP fails in TLS, with OpenSSL's words only.
  if (address.url.protocol === "https:" && /wrong version number|ERR_SSL_WRONG_VERSION/i.test(why)) {
    return `; the server may speak plain HTTP: try http://${address.url.host}${address.url.pathname}`;
  }
  if (error instanceof UnauthorizedError || /\b401\b/.test(why)) {
    // A key given (--api-key-file, or --header Authorization) and refused is a wrong key, not a missing one.
    const keyGiven =
      address.apiKey !== undefined ||
      Object.keys(address.headers).some((name) => name.toLowerCase() === "authorization");
    return keyGiven
      ? "; the server refused the API key given: check it"
      : "; give its API key with --api-key-file";
  }
  if (answeredStatus(error) === 404 && !address.url.pathname.endsWith("/mcp")) {
    // The server's address without its endpoint's path, the slip a first sync makes.
    return `; give the URL of its MCP endpoint, as ${new URL("/mcp", address.url).href} for a skills-mcp server`;
  }
  // A connection this process could not open for want of a file descriptor is no sign of the server.
  const outOfFiles = outOfFilesHint(why);
  if (outOfFiles !== "") return outOfFiles;
  if (/\bECONNREFUSED\b/.test(why)) {
    return `; nothing listens at ${address.url.host}: check that the server runs and the URL's port`;
  }
  if (/\bbad port\b/.test(why)) {
    // fetch refuses the ports browsers block (6000, 6665-6669, 10080…) before any connection.
    return `; fetch refuses to connect to port ${address.url.port}, as browsers do: serve the MCP endpoint on another port`;
  }
  return "";
}

/** The hint for a failure through `proxy` that nothing else explains. */
function checkTheProxy(proxy: EnvProxy): string {
  return `; check the proxy ${proxy.variable} names, or name the server's host in NO_PROXY to connect directly`;
}

function throughThe(proxy: EnvProxy): string {
  return ` through the proxy ${proxy.url} (${proxy.variable})`;
}

/**
 * For a request after the connection's start (listing the skills, reading a skill's files) that failed
 * through the environment's proxy with no answer from the server: the proxy, named as a failure to connect
 * names it, and what to check. undici tunnels every request through the proxy (CONNECT, to an http://
 * server too), so a status the proxy answers itself (407, 502…) fails the tunnel (`Proxy response (502)
 * !== 200 when HTTP Tunneling`); a status answered came through the tunnel, from the server or what stands
 * in front of it (an ingress; a skills-mcp server shedding load answers 503). Empty when sync reaches `url`
 * (the server's URL) directly, or the server answered: with a status, or a JSON-RPC error.
 */
export function proxyOfFailure(url: URL, error: unknown, why: string): { through: string; hint: string } {
  const proxy = proxyFor(url, process.env, process.execArgv);
  if (proxy === undefined || serverAnswered(error, why)) return { through: "", hint: "" };
  const hint = proxyHint(proxy, why) ?? checkTheProxy(proxy);
  return { through: throughThe(proxy), hint };
}

/** Why a request got no answer, and the proxy it went through with what to check (empty when none is to blame). */
export type NoAnswer = { readonly why: string } & ReturnType<typeof proxyOfFailure>;

/** A request to the server at `server` that failed with `error`, in words: see proxyOfFailure. */
export function noAnswer(server: URL, error: unknown): NoAnswer {
  const why = describeError(error);
  return { why, ...proxyOfFailure(server, error, why) };
}

/**
 * A read's failure in words: `error`'s message, which says which read, then through the environment's
 * proxy it failed at (as proxyOfFailure tells it) and its cause's words, with what to check of the proxy;
 * else describeError's words, and no hint.
 */
export function readFailure(error: Error, server: URL): { readonly said: string; readonly hint: string } {
  const why = describeError(error.cause);
  const { through, hint } = proxyOfFailure(server, error.cause, why);
  return through === ""
    ? { said: describeError(error), hint: "" }
    : { said: `${error.message}${through}: ${why}`, hint };
}

/**
 * Whether the server answered the request that failed with `error` (`why` in words): with an HTTP status,
 * which came through the proxy's tunnel from the server or what stands in front of it, or with a JSON-RPC
 * error. A status the proxy answers itself fails the tunnel instead (`Proxy response (502) !== 200`).
 */
function serverAnswered(error: unknown, why: string): boolean {
  return answeredStatus(error) !== undefined || /\(HTTP \d{3}\)/.test(why) || answeredError(error);
}

/** Whether the error, or one of its causes, is a JSON-RPC error the server answered with. */
function answeredError(error: unknown): boolean {
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 4; depth++) {
    if (at instanceof ProtocolError) return true;
    at = at.cause;
  }
  return false;
}

/**
 * What to check when the connection went through a proxy and the proxy failed it: every connection goes
 * to the proxy, so a refused one is the proxy's; a tunnel it would not open says why in its status (a
 * status answered through the tunnel is the server's); a variable that names no HTTP proxy stops undici
 * before any connection.
 */
function proxyHint(proxy: EnvProxy, why: string): string | undefined {
  if (!/^https?:\/\//.test(proxy.url)) {
    return proxy.url.includes("://")
      ? `; sync speaks to HTTP proxies only: give ${proxy.variable} as an http:// or https:// URL`
      : `; give ${proxy.variable} as a URL, as http://${proxy.url}`;
  }
  if (/\bECONNREFUSED\b/.test(why)) {
    return `; nothing listens at the proxy's address, ${proxy.host}: check that the proxy runs and the address in ${proxy.variable}`;
  }
  if (/Proxy response \(407\)/.test(why)) {
    return proxy.credentials
      ? `; the proxy refused the credentials given: check the user and password in ${proxy.variable}`
      : `; the proxy asks for credentials: give them in ${proxy.variable} (http://user:password@host:port)`;
  }
  if (/Proxy response \(\d+\)/.test(why)) {
    return "; the proxy would not open a connection to the server: check that the proxy can reach it, or name the server's host in NO_PROXY to connect directly";
  }
  return undefined;
}

/**
 * What a server that answered a scope (`--pack`, sent as X-Skill-Pack) with HTTP 400 said of it: the
 * packs given and the server's own words, which name the valid selectors. It answered: the connection
 * worked, and "cannot connect" would send the user looking at the network.
 */
function scopeRefusal(server: ServerAddress, error: unknown, why: string): string | undefined {
  const packs = Object.entries(server.headers).find(([name]) => name.toLowerCase() === "x-skill-pack")?.[1];
  if (packs === undefined || answeredStatus(error) !== 400) return undefined;
  const said =
    error instanceof RefusedAnswerError
      ? error.said
      : why.replace(/^Error POSTing to endpoint(?: \(HTTP 400\))?: /, "");
  return `the pack asked for ${quoted(packs)}: ${said}`;
}
