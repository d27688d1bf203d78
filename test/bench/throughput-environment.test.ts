import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mcpPost, post } from "../../bench/load.js";
import type { RunningProcess } from "../../bench/processes.js";
import { startThroughputServer, THROUGHPUT_LOAD_SHEDDING } from "../../bench/throughput.js";
import { ROOT } from "../helpers/process.js";

/**
 * The throughput bench's servers inherit the user's environment: load-shedding settings exported there
 * must not change what is measured.
 */
describe("the throughput bench's servers", () => {
  let server: RunningProcess | undefined;
  let workDir: string | undefined;

  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.stop();
    server = undefined;
    if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
    workDir = undefined;
  });

  it("shed as production does, whatever SHED_* the shell exports", async () => {
    expect(THROUGHPUT_LOAD_SHEDDING).toEqual({
      SHED_EVENT_LOOP_DELAY_MS: "1000",
      SHED_EVENT_LOOP_UTILIZATION: "0",
      SHED_RSS_MB: "0",
    });
    // 1 MiB is under what any server holds: inherited, it would shed every request with a 503.
    vi.stubEnv("SHED_RSS_MB", "1");
    vi.stubEnv("SHED_EVENT_LOOP_UTILIZATION", "0.01");
    workDir = await mkdtemp(path.join(tmpdir(), "throughput-env-"));
    server = await startThroughputServer({
      skillsDir: path.join(ROOT, "examples/skills"),
      logDir: workDir,
      name: "server-throughput",
      readyTimeoutMs: 60_000,
    });
    const answer = await post(server.url, mcpPost("tools/list"));
    expect(answer.status).toBe(200);
    expect(server.logLines().filter((line) => line.level === 40)).toEqual([]);
  });
});
