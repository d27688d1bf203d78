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
    const text = at.message.trim();
    const message = coded ? `${text} (${code})` : text;
    if (message !== "" && !parts.some((part) => part.includes(text))) {
      parts.push(message);
    }
    at = at.cause ?? (at as { data?: { cause?: unknown } }).data?.cause;
  }
  return parts.join(": ");
}
