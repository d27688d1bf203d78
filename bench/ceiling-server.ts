/**
 * The ceiling of the throughput benchmark: a bare Fastify app, without MCP, answering each recorded
 * request with the bytes the real server gave it. What Fastify, Node's HTTP stack and the loopback cost
 * is all it measures, so the real server's ratio to it is the share of the machine MCP leaves.
 *
 *   node --import tsx bench/ceiling-server.ts <fixtures.json> <port>
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";
import { ceilingPath, type Fixture } from "./fixtures.js";

async function main(fixturesFile: string, port: number): Promise<void> {
  const fixtures = JSON.parse(readFileSync(fixturesFile, "utf8")) as Fixture[];
  const app = Fastify({ logger: false });
  for (const fixture of fixtures) {
    const body = Buffer.from(fixture.body, "base64");
    // The request's JSON body is parsed as the real server parses it; only the answer is canned.
    app.post(ceilingPath(fixture.id), (_request, reply) => {
      reply.code(fixture.status).header("content-type", fixture.contentType).send(body);
    });
  }
  app.get("/health", () => ({ status: "ok" }));
  await app.listen({ port, host: "127.0.0.1" });
  const stop = () => void app.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

const [fixturesFile, port] = process.argv.slice(2);
if (fixturesFile === undefined || port === undefined) {
  console.error("usage: ceiling-server.ts <fixtures.json> <port>");
  process.exit(2);
}
main(fixturesFile, Number(port)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
