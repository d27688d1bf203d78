/**
 * The image's HEALTHCHECK command, as the Dockerfile gives it, run beside a server started on each kind of
 * HOST: no image is built, so it runs with or without a container engine.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../../scripts/free-port.js";
import { MAIN, ROOT, TEST_ENV } from "../helpers/process.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

const run = promisify(execFile);

/** The HEALTHCHECK's CMD, in exec form: the program and its arguments. */
async function healthcheckCommand(): Promise<string[]> {
  const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
  const command = /^HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  if (command === undefined) throw new Error("no HEALTHCHECK CMD in exec form in the Dockerfile");
  return JSON.parse(command) as string[];
}

/** The healthcheck's exit status, with HOST and PORT in its environment as the container has them. */
async function healthcheck(env: { HOST: string; PORT: string }): Promise<number> {
  const [program = "", ...args] = await healthcheckCommand();
  const { HOST: _host, PORT: _port, ...inherited } = process.env;
  return run(program === "node" ? process.execPath : program, args, {
    env: { ...inherited, ...env },
    timeout: 10_000,
  }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? 1,
  );
}

describe("the image's HEALTHCHECK", () => {
  let tree: Awaited<ReturnType<typeof makeTree>>;
  const servers: ChildProcess[] = [];
  beforeAll(async () => {
    tree = await makeTree({ "p/s/SKILL.md": skillMd("s", "A skill.") });
  });
  afterAll(async () => {
    for (const server of servers) {
      server.kill("SIGTERM");
      if (server.exitCode === null) await once(server, "close");
    }
    await tree?.remove();
  });

  // Regression: it asked 127.0.0.1 whatever HOST was, so a container listening on ::1 (or on one address
  // of the host's network) was unhealthy to docker ps and to Compose's depends_on while it served.
  it.each(["0.0.0.0", "127.0.0.1", "::1", "::"])("finds the server healthy on HOST=%s", async (host) => {
    const env = { HOST: host, PORT: String(await freePort()) };
    const server = spawn(process.execPath, MAIN, {
      env: { ...process.env, ...TEST_ENV, SKILLS_DIR: tree.dir, ...env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    servers.push(server);
    let output = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await vi.waitFor(() => expect(output).toContain('"msg":"ready"'), { timeout: 30_000, interval: 50 });
    expect(await healthcheck(env)).toBe(0);
  });
});
