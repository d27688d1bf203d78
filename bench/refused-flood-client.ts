/**
 * The flooding client of `npm run bench:refused-flood` (see refused-flood.ts), in a process of its own so
 * that its work does not delay the probes timed beside it: opens `count` connections at once, each POSTing
 * a body of `bytes` to /mcp with its Content-Length and reading what comes back, and prints as one JSON line
 * how many read a 413, how many were reset first, how many were closed without a word or got anything else,
 * and how long the flood took.
 *
 *   node --import tsx bench/refused-flood-client.ts <url> <count> <bytes>
 */
import net from "node:net";

/** What one flooding connection saw. */
type Outcome = "413" | "reset" | "closed unanswered" | "other";

function refusedBody(url: URL, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    let answer = "";
    let settled = false;
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const read = (): Outcome =>
      answer.startsWith("HTTP/1.1 413 ") ? "413" : answer === "" ? "closed unanswered" : "other";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    // A reset before the answer is what a client of a server that closed with the body unread saw.
    socket.on("error", () => settle(answer === "" ? "reset" : read()));
    socket.on("close", () => settle(read()));

    socket.on("connect", () => {
      socket.write(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      // Not ended: a client that writes its body and waits for the answer (fetch, http.client) keeps its side open.
      socket.write(body);
    });
  });
}

const [url = "", count = "200", bytes = "524288"] = process.argv.slice(2);
// One body for every connection: one each held gigabytes in this process at the larger sizes.
const body = Buffer.alloc(Number(bytes), " ");
const started = performance.now();
const outcomes = await Promise.all(
  Array.from({ length: Number(count) }, () => refusedBody(new URL(url), body)),
);
const counted = { "413": 0, reset: 0, "closed unanswered": 0, other: 0 };
for (const outcome of outcomes) counted[outcome]++;
console.log(JSON.stringify({ ...counted, ms: Math.round(performance.now() - started) }));
