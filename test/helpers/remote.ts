import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export { call } from "./server.js";

export interface ConnectedClient {
  readonly client: Client;
  close(): Promise<void>;
}

/** An SDK client on `<url>/mcp` of a server running elsewhere (a process or a container). */
export async function connectClient(
  url: string,
  headers: Record<string, string> = {},
): Promise<ConnectedClient> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers } });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}
