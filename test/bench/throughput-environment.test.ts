import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mcpPost, post } from "../../bench/load.js";
import { type RunningProcess, startServer } from "../../bench/processes.js";
import { PRODUCTION_SETTINGS } from "../../scripts/production-settings.js";
import { ROOT } from "../helpers/process.js";

/**
 * The bench's servers inherit the user's environment: settings exported there (load shedding, the log's
 * level, the previews, keys) must not change what is measured.
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

  async function startOnExamples(): Promise<RunningProcess> {
    workDir = await mkdtemp(path.join(tmpdir(), "bench-env-"));
    server = await startServer({
      skillsDir: path.join(ROOT, "examples/skills"),
      logDir: workDir,
      name: "server-throughput",
      readyTimeoutMs: 60_000,
    });
    return server;
  }

  it("run with every setting at production's default", () => {
    expect(PRODUCTION_SETTINGS).toMatchObject({
      SHED_EVENT_LOOP_DELAY_MS: "1000",
      SHED_EVENT_LOOP_UTILIZATION: "0",
      SHED_RSS_MB: "0",
      LOG_LEVEL: "info",
      CATALOG_PREVIEW: "on",
      RATE_LIMIT_PER_MINUTE: "0",
      API_KEYS: "",
      SKILL_PACKS: "",
    });
  });

  it("shed as production does, whatever SHED_* the shell exports", async () => {
    // 1 MiB is under what any server holds: inherited, it would shed every request with a 503.
    vi.stubEnv("SHED_RSS_MB", "1");
    vi.stubEnv("SHED_EVENT_LOOP_UTILIZATION", "0.01");
    const started = await startOnExamples();
    expect((await post(started.url, mcpPost("tools/list"))).status).toBe(200);
    expect(started.logLines().filter((line) => line.level === 40)).toEqual([]);
  });

  // At debug, the server would write a line for every request measured.
  it("log at info, whatever LOG_LEVEL the shell exports", async () => {
    vi.stubEnv("LOG_LEVEL", "debug");
    const started = await startOnExamples();
    expect((await post(started.url, mcpPost("tools/list"))).status).toBe(200);
    expect(started.logLines().filter((line) => typeof line.level === "number" && line.level < 30)).toEqual(
      [],
    );
  });

  it("answer as production does, whatever CATALOG_PREVIEW, API_KEYS or RATE_LIMIT_PER_MINUTE the shell exports", async () => {
    vi.stubEnv("CATALOG_PREVIEW", "off");
    vi.stubEnv("API_KEYS", "a-key-of-sixteen-chars");
    vi.stubEnv("RATE_LIMIT_PER_MINUTE", "1");
    const started = await startOnExamples();
    for (let turn = 0; turn < 2; turn++) {
      const answer = await post(started.url, mcpPost("tools/list"));
      expect(answer.status).toBe(200);
      // The previews name the packs in scope; off, one generic sentence names none.
      expect(answer.text).toContain("workflows");
    }
  });
});
