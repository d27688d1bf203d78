/** The work of `npm run bench:refused-flood` (see refused-flood.ts), loaded once its command line is read. */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { EXAMPLES_DIR } from "./catalogs.js";
import { ROOT, startServer } from "./processes.js";

/** What refused-flood.ts read from its command line. */
export interface FloodOptions {
  readonly clients: number;
  readonly bytes: number;
  readonly everyMs: number;
  readonly rounds: number;
}

/** How long each phase without a flood is probed. */
const QUIET_MS = 2000;
/** The manifests' probe timeouts (deploy/base/deployment.yaml): readiness at Kubernetes' default, liveness 5 s. */
const READINESS_TIMEOUT_MS = 1000;
const LIVENESS_TIMEOUT_MS = 5000;
/** How long a probe waits for its answer before it counts as failed: past both timeouts above. */
const PROBE_GIVE_UP_MS = 4 * LIVENESS_TIMEOUT_MS;
const FLOOD_CLIENT = fileURLToPath(new URL("./refused-flood-client.ts", import.meta.url));
const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

/** One GET /health on a connection of its own, as a kubelet's probe; its time in ms, or NaN when it failed. */
function probe(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get(`${url}/health`, { agent: false }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve(response.statusCode === 200 ? performance.now() - started : Number.NaN),
      );
    });
    request.on("error", () => resolve(Number.NaN));
    // A server that never answers fails the probe, as the kubelet's would, instead of hanging the bench.
    request.setTimeout(PROBE_GIVE_UP_MS, () => request.destroy());
  });
}

/** Probes `url` every `everyMs` until `until` settles, each probe started on time whether or not the last has answered. */
async function probeUntil(url: string, until: Promise<unknown>, everyMs: number): Promise<number[]> {
  let done = false;
  // Both ways: a flood that fails is the caller's to report, not an unhandled rejection that ends the
  // bench before it stops its server.
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  const probes: Promise<number>[] = [];
  while (!done) {
    probes.push(probe(url));
    await sleep(everyMs);
  }
  return Promise.all(probes);
}

function flood(url: string, clients: number, bytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", TSX_LOADER, FLOOD_CLIENT, url, String(clients), String(bytes)],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`flood client exited ${code}`)),
    );
  });
}

function summary(name: string, times: readonly number[]): string {
  const answered = times.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  const at = (share: number) =>
    answered[Math.min(answered.length - 1, Math.floor(share * answered.length))] ?? Number.NaN;
  const over = (ms: number) => answered.filter((time) => time > ms).length;
  return (
    `${name.padEnd(8)} ${String(times.length).padStart(4)} probes: median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, ` +
    `most ${at(1).toFixed(1)} ms; over ${READINESS_TIMEOUT_MS} ms ${over(READINESS_TIMEOUT_MS)}, over ${LIVENESS_TIMEOUT_MS} ms ${over(LIVENESS_TIMEOUT_MS)}, failed ${times.length - answered.length}`
  );
}

export async function main({ clients, bytes, everyMs, rounds }: FloodOptions): Promise<void> {
  const logDir = mkdtempSync(path.join(tmpdir(), "refused-flood-"));
  const server = await startServer({ skillsDir: EXAMPLES_DIR, logDir, name: "server" });
  try {
    console.log(
      `${clients} connections at once, each a body of ${bytes} bytes (MAX_BODY_BYTES 65536, its default); /health every ${everyMs} ms`,
    );
    for (let round = 1; round <= rounds; round++) {
      const before = await probeUntil(server.url, sleep(QUIET_MS), everyMs);
      const cpuBefore = server.cpuMs();
      const flooding = flood(server.url, clients, bytes);
      const during = await probeUntil(server.url, flooding, everyMs);
      const cpuDuring = server.cpuMs() - cpuBefore;
      const after = await probeUntil(server.url, sleep(QUIET_MS), everyMs);
      console.log(
        `round ${round}: flood ${await flooding}; the server's CPU meanwhile ${Math.round(cpuDuring)} ms`,
      );
      for (const [name, times] of [
        ["before", before],
        ["during", during],
        ["after", after],
      ] as const)
        console.log(`  ${summary(name, times)}`);
    }
  } finally {
    await server.stop();
  }
}
