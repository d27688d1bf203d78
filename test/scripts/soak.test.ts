/**
 * `npm run soak -- --help` was refused as an unknown option, an unknown option got Node's own text on
 * placing positionals after `--`, and a wrong command line exited 1, as a failed request does, where every
 * other script exits 2. None starts a server: no load is run here.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/process.js";

const run = promisify(execFile);

function soak(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ["--import", "tsx", "scripts/soak.ts", ...args], {
    cwd: ROOT,
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("npm run soak's command line", () => {
  it("prints its usage on --help, naming every option", async () => {
    const { code, stdout } = await soak(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run soak -- \[options\]/);
    for (const option of ["--duration", "--connections", "--warmup", "--skills-dir"]) {
      expect(stdout).toContain(option);
    }
  });

  it("refuses an unknown option with the valid ones, then the usage", async () => {
    const { code, stdout, stderr } = await soak(["--durations", "5"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /^soak: unknown option --durations; valid: --duration, --connections, --warmup, --skills-dir, --help \(-h\)\n\nUsage: npm run soak/,
    );
  });

  it("refuses a bad value as a wrong command line (2), naming the option and the value", async () => {
    const { code, stdout, stderr } = await soak(["--duration", "abc"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^soak: --duration "abc" is not a whole number ≥ 1\n\nUsage: npm run soak/);
  });

  // Number() read "1e3" as 1000: a soak of 17 minutes for a value nobody wrote as one.
  it("refuses a number not written in digits alone", async () => {
    const { code, stderr } = await soak(["--duration", "1e3"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^soak: --duration "1e3" is not a whole number ≥ 1\n/);
  });
});
