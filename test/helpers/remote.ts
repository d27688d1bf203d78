import type { Client } from "@modelcontextprotocol/client";
import { type ConnectOptions, connectTo } from "./server.js";

export { call } from "./server.js";

export interface ConnectedClient {
  readonly client: Client;
  close(): Promise<void>;
}

/** An SDK client on `<url>/mcp` of a server running elsewhere (a process or a container). */
export async function connectClient(
  url: string,
  headers: Record<string, string> = {},
  options: Omit<ConnectOptions, "headers"> = {},
): Promise<ConnectedClient> {
  const client = await connectTo(new URL(`/mcp${options.query ?? ""}`, url), { ...options, headers });
  return { client, close: () => client.close() };
}
