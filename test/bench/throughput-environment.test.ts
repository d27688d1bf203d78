import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mcpPost, post } from "../../bench/load.js";
import { type RunningProcess, startServer } from "../../bench/processes.js";
import { startThroughputServer, THROUGHPUT_LOAD_SHEDDING } from "../../bench/throughput.js";
import { ROOT } from "../helpers/process.js";

/**
 * The bench's servers inherit the user's environment: settings exported there (load shedding, the log's
 * level) must not change what is measured.
 */
describe("the bench's servers", () => {
  let server: RunningProcess | undefined;
  let workDir: string | undefined;

  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.stop();
    server = undefined;
    if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
    workDir = undefined;
  });

  it("measuring throughput shed as production does, whatever SHED_* the shell exports", async () => {
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

  // The bench says it runs the server as production does, logging at info: at debug, it would write a
  // line for every request it measures.
  it("log at info, whatever LOG_LEVEL the shell exports", async () => {
    vi.stubEnv("LOG_LEVEL", "debug");
    workDir = await mkdtemp(path.join(tmpdir(), "throughput-env-"));
    server = await startServer({
      skillsDir: path.join(ROOT, "examples/skills"),
      logDir: workDir,
      name: "server-scale",
      readyTimeoutMs: 60_000,
    });
    expect((await post(server.url, mcpPost("tools/list"))).status).toBe(200);
    expect(server.logLines().filter((line) => typeof line.level === "number" && line.level < 30)).toEqual([]);
  });
});
