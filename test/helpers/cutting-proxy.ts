import http from "node:http";

interface CuttingProxy {
  /** The proxy's /mcp, to sync from in place of the server's. */
  readonly url: string;
  /** How many connections clients have opened to the proxy so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** An answer the proxy gives itself, in place of the server's: a status and its headers, no body. */
export interface ProxyAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the proxy does with a request: pass it on (false), cut it (true), or answer it itself. */
type ProxyVerdict = boolean | ProxyAnswer;

/**
 * An HTTP proxy on 127.0.0.1 in front of `upstream` that passes each request on, but closes its connection
 * without an answer when `cut` says so of its body: a server gone part way, or one failing a read; or
 * answers itself when `cut` gives the answer (a 429 with `Retry-After`). A request waits for a verdict
 * given later (a promise): a server slow to answer.
 */
export async function cuttingProxy(
  upstream: URL,
  cut: (body: Buffer) => ProxyVerdict | Promise<ProxyVerdict>,
): Promise<CuttingProxy> {
  const front = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const body = Buffer.concat(chunks);
      const verdict = await cut(body);
      if (verdict === true) {
        request.socket.destroy();
        return;
      }
      if (verdict !== false) {
        response.writeHead(verdict.status, verdict.headers).end();
        return;
      }
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.end(body);
    });
  });
  let connections = 0;
  front.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const address = front.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    get connections() {
      return connections;
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}
