/**
 * SLOW (the server from its TypeScript source: some seconds). `npm run dev` serves the source as `npm start`
 * serves the build, and a stop sent to its process group (Ctrl-C in a terminal, `timeout`, a process
 * manager) is one stop: through tsx's own command, which passes a signal on to the node it starts, the
 * server got it twice and cut its drain short ("stopping at once on a second stop signal").
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../scripts/free-port.js";
import { ROOT } from "./helpers/process.js";

/** Long enough for a first start from the source on a busy 2-core machine; only a failure waits this long. */
const START_MS = 120_000;

it("stops once, draining, on a SIGTERM to the process group of npm run dev", {
  timeout: START_MS + 30_000,
}, async () => {
  const port = await freePort();
  const child = spawn("npm", ["run", "--silent", "dev"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      SKILLS_DIR: path.join(ROOT, "examples/skills"),
      SHUTDOWN_DRAIN_MS: "100",
    },
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  // A spawn that failed has no pid, and process.kill(-0) would stop this test's own group.
  if (child.pid === undefined) throw new Error("npm run dev did not start");
  const group = -child.pid;
  const killer = setTimeout(() => process.kill(group, "SIGKILL"), START_MS);
  while (!output.includes(`"mcp":"http://127.0.0.1:${port}/mcp"`) && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.kill(group, "SIGTERM");
  // npm's own status follows the shell it ran the script in, which the signal ends, as for npm start.
  await exited;
  clearTimeout(killer);
  const said = output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string });
  // One SIGTERM, drained (a second signal would say "stopping at once"; a SIGINT drains nothing).
  expect(said.filter(({ msg }) => /^(shutting down|stopping at once|stopped)/.test(msg))).toEqual([
    expect.objectContaining({
      msg: expect.stringMatching(/^shutting down/),
      signal: "SIGTERM",
      drainMs: 100,
    }),
    expect.objectContaining({ msg: "stopped", signal: "SIGTERM" }),
  ]);
});
