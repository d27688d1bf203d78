/** The work of `bench/sync-latency.ts`, loaded once its command line is read. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { mcpDepsOf } from "../scripts/in-memory-client.js";
import { buildApp } from "../src/http/index.js";
import { loadStartupConfig } from "../src/startup/index.js";
import { type SyncOptions, syncSkills } from "../src/sync/index.js";

/** Syncs a catalog of `skills` skills served behind a proxy that holds each request `latency` ms. */
export async function main(skills: number, latency: number): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-sync-bench-"));
  const catalog = path.join(dir, "skills");

  /** Writes the catalog; `round` changes one file of each skill. */
  async function writeCatalog(round: number): Promise<void> {
    await mkdir(path.join(catalog, "team", "shared"), { recursive: true });
    await writeFile(path.join(catalog, "team", "shared", "common.md"), "# Common\nShared rules.\n");
    for (let index = 0; index < skills; index++) {
      const name = `skill-${String(index).padStart(3, "0")}`;
      const folder = path.join(catalog, "team", name);
      await mkdir(path.join(folder, "references"), { recursive: true });
      await writeFile(path.join(catalog, "team", "shared", `${name}.md`), `# ${name} notes\n`);
      await writeFile(
        path.join(folder, "SKILL.md"),
        `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\nFollow shared/common.md and shared/${name}.md; see references/style.md.\n`,
      );
      await writeFile(
        path.join(folder, "references", "style.md"),
        `# Style of ${name}\n${"x".repeat(4096)}\n`,
      );
      await writeFile(path.join(folder, "references", "changes.md"), `# Changes\nround ${round}\n`);
    }
  }

  async function serve(): Promise<{ port: number; close(): Promise<void> }> {
    const env = { SHED_EVENT_LOOP_DELAY_MS: "0" };
    const app = await buildApp({
      mcp: await mcpDepsOf(catalog, { version: "bench", env }),
      logger: pino({ level: "silent" }),
      settings: loadStartupConfig({ ...env, SKILLS_DIR: catalog }).http,
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    return { port: address.port, close: () => app.close() };
  }

  /** Requests seen, by JSON-RPC method; the most held at once. */
  const seen = new Map<string, number>();
  let held = 0;
  let mostHeld = 0;
  let upstreamPort = 0;

  const proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = /"method"\s*:\s*"([^"]+)"/.exec(body.toString("utf8"))?.[1] ?? request.method ?? "?";
      seen.set(method, (seen.get(method) ?? 0) + 1);
      held += 1;
      mostHeld = Math.max(mostHeld, held);
      setTimeout(() => {
        held -= 1;
        const forward = http.request(
          {
            host: "127.0.0.1",
            port: upstreamPort,
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
      }, latency);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyAddress = proxy.address();
  if (proxyAddress === null || typeof proxyAddress === "string") throw new Error("no TCP address");
  const endpoint = new URL(`http://127.0.0.1:${proxyAddress.port}/mcp`);

  const quiet = { note: () => undefined, skill: () => undefined, finish: () => undefined };
  const target = path.join(dir, "target");

  async function run(label: string, mode: SyncOptions["mode"]): Promise<void> {
    seen.clear();
    mostHeld = 0;
    const started = performance.now();
    const report = await syncSkills({
      server: { url: endpoint, headers: {} },
      scope: { packs: [], headers: [] },
      folder: target,
      mode,
      allowUnsafe: false,
      era: "auto",
      progress: quiet,
    });
    const ms = performance.now() - started;
    const total = [...seen.values()].reduce((sum, count) => sum + count, 0);
    const methods = [...seen].map(([method, count]) => `${method} ${count}`).join(", ");
    console.log(
      `${label.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms  ${String(total).padStart(4)} requests (at most ${mostHeld} at once: ${methods})  ${JSON.stringify(report.counts)}`,
    );
  }

  try {
    console.log(`${skills} skills, ${latency} ms a request`);
    await writeCatalog(0);
    let server = await serve();
    upstreamPort = server.port;
    await run("first sync", "sync");
    await run("sync, nothing to change", "sync");
    await run("check, up to date", "check");
    await server.close();
    await writeCatalog(1);
    server = await serve();
    upstreamPort = server.port;
    await run("sync, one file of each changed", "sync");
    await server.close();
  } finally {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}
