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
    const text = withoutEnvelope(at.message.trim());
    const message = coded ? `${text} (${code})` : text;
    if (message !== "" && !parts.some((part) => part.includes(text))) {
      parts.push(message);
    }
    at = at.cause ?? (at as { data?: { cause?: unknown } }).data?.cause;
  }
  return parts.join(": ");
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
