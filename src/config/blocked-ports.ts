/**
 * The ports the Fetch standard blocks (its "bad port" list, https://fetch.spec.whatwg.org/#port-blocking):
 * browsers and Node's fetch refuse to connect to them, and so do the MCP SDKs' HTTP clients (Claude Code,
 * n8n's MCP Client Tool) and `skills-mcp sync`. A server may listen there; hardly any client reaches it.
 */
const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The warning for a server told to listen on such a port, or undefined for any other. */
export function blockedPortWarning(port: number): string | undefined {
  if (!FETCH_BLOCKED_PORTS.has(port)) return undefined;
  return `PORT ${port} is one that browsers and fetch refuse to connect to ("bad port"): MCP clients built on fetch, skills-mcp sync among them, cannot reach this server; set another PORT`;
}
