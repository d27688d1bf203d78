import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { logLines, MAIN, ROOT } from "../helpers/process.js";

describe("a stdio server's log, as a desktop host's log panel shows it", () => {
  // Regression: over stdio the log said neither when the server was ready to answer (HTTP logs `ready`, with
  // what the start took) nor why it stopped when the client closed stdin, the most common end of a session.
  it("says when it is ready, with what its start took, and that it stops because stdin closed", async () => {
    const child = spawn(process.execPath, [...MAIN, "--stdio"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", SKILLS_DIR: path.join(ROOT, "examples/skills"), NODE_OPTIONS: "" },
    });
    try {
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
      await vi.waitFor(() => expect(stdout).toContain('"id":1'), { timeout: 30_000 });
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = logLines(stderr);
      expect(lines.find((line) => line.msg === "ready")).toMatchObject({
        level: 30,
        transport: "stdio",
        ms: expect.any(Number),
        catalogMs: expect.any(Number),
        index: "built",
      });
      expect(lines.at(-1)).toMatchObject({ level: 30, msg: "stdio: the client closed stdin; stopping" });
      expect(lines.filter((line) => line.msg === "stdio: the client closed stdin; stopping")).toHaveLength(1);
    } finally {
      child.kill();
    }
  });
});
