import { quoted } from "../shared/index.js";

/**
 * An error's message and its causes' (fetch keeps ECONNREFUSED in a cause, and the SDK its own causes in
 * `data.cause`), each once.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts: string[] = [];
  let at: unknown = error;
  while (at instanceof Error && parts.length < 4) {
    const code = (at as NodeJS.ErrnoException).code;
    const coded = code !== undefined && /^E[A-Z]+$/.test(code) && !at.message.includes(code);
    // OpenSSL's messages end in a line break.
    const text = issuesInLine(withoutPage(withStatus(withoutEnvelope(at.message.trim()), at)));
    const message = coded ? `${text} (${code})` : text;
    if (message !== "" && !parts.some((part) => part.includes(text))) {
      parts.push(message);
    }
    at = at.cause ?? (at as { data?: { cause?: unknown } }).data?.cause;
  }
  return parts.join(": ");
}

/**
 * The SDK's message for a status it answers no other way (`Error POSTing to endpoint: <body>`) names no
 * status, and an ingress's 503 may have an empty body: with the status, as the SDK's other message
 * (`Error POSTing to endpoint (HTTP 404): …`) says it.
 */
function withStatus(message: string, error: Error): string {
  const status = (error as { data?: { status?: unknown } }).data?.status;
  const match = /^Error POSTing to endpoint:(?: |$)/.exec(message);
  if (typeof status !== "number" || match === null) return message;
  const rest = message.slice(match[0].length);
  return `Error POSTing to endpoint (HTTP ${status})${rest === "" ? "" : `: ${rest}`}`;
}

/** The SDK's words before the body of an HTTP answer it did not take, with or without the status. */
const POSTED = /^Error POSTing to endpoint(?: \(HTTP \d{3}\))?: /;
/** How far into an HTML page its title is looked for: an ingress's error page names it at the top. */
const PAGE_HEAD = 4096;

/**
 * A message quoting an HTML page a server or its ingress answered with (nginx's `<html><head><title>503
 * Service Temporarily Unavailable</title>…`), with the page's title in place of the page, which made
 * every line of a run that met one a page of markup.
 */
function withoutPage(message: string): string {
  const posted = POSTED.exec(message);
  if (posted === null) return message;
  const body = message.slice(posted[0].length);
  if (!/^\s*</.test(body)) return message;
  const title = /<title[^<>]*>([^<]*)<\/title>/i.exec(body.slice(0, PAGE_HEAD))?.[1]?.trim();
  const page = title === undefined || title === "" ? "an HTML page" : `an HTML page titled ${quoted(title)}`;
  return `${posted[0]}${page}`;
}

/**
 * A message quoting the JSON-RPC error a server answered an HTTP request with (the SDK's `Error POSTing
 * to endpoint: {"jsonrpc":…}`), with the error's own message in place of the JSON.
 */
function withoutEnvelope(message: string): string {
  const start = message.indexOf('{"jsonrpc"');
  if (start < 0) return message;
  try {
    const body: unknown = JSON.parse(message.slice(start));
    const error = typeof body === "object" && body !== null && "error" in body ? body.error : undefined;
    const said =
      typeof error === "object" && error !== null && "message" in error ? error.message : undefined;
    return typeof said === "string" ? `${message.slice(0, start)}${said}` : message;
  } catch {
    return message;
  }
}

/** The SDK's words before the issues its schema found in an answer, which it gives as JSON. */
const INVALID_RESULT = /^Invalid result for [^\s:]+: (?=\[)/;

/**
 * The SDK's message for an answer its schema refused (`Invalid result for resources/read: [\n  {\n
 * "code": "custom", …`, a dozen lines of JSON, which a progress line showed with each line break escaped),
 * with each issue as `path: message`, as the server words its own (`contents.0.blob: Invalid Base64
 * string`).
 */
function issuesInLine(message: string): string {
  const said = INVALID_RESULT.exec(message);
  if (said === null) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(message.slice(said[0].length));
  } catch {
    return message;
  }
  if (!Array.isArray(issues)) return message;
  const told = issues.map(issueInWords);
  return told.length === 0 || told.includes(undefined) ? message : `${said[0]}${told.join("; ")}`;
}

/** One issue of a schema's as `path: message`, or undefined for what is not one. */
function issueInWords(issue: unknown): string | undefined {
  if (typeof issue !== "object" || issue === null || !("message" in issue)) return undefined;
  if (typeof issue.message !== "string") return undefined;
  const at = "path" in issue && Array.isArray(issue.path) ? issue.path.join(".") : "";
  return at === "" ? issue.message : `${at}: ${issue.message}`;
}

/**
 * The HTTP status a server answered with, where the error (or one of its causes) carries it, as the SDK's
 * `SdkHttpError` does in `data.status`.
 */
export function answeredStatus(error: unknown): number | undefined {
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 4; depth++) {
    const data = (at as { data?: { status?: unknown; cause?: unknown } }).data;
    if (typeof data?.status === "number") return data.status;
    at = at.cause ?? data?.cause;
  }
  return undefined;
}
