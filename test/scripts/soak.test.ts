/**
 * `npm run soak -- --help` was refused as an unknown option, an unknown option got Node's own text on
 * placing positionals after `--`, and a wrong command line exited 1, as a failed request does, where every
 * other script exits 2. Those start no server; the last runs a two-second soak of the built server.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { builtScript } from "../helpers/built-scripts.js";
import { ROOT, runNpmScript } from "../helpers/process.js";

const run = promisify(execFile);

/** As `npm run soak` runs it, from source: the first test's way. */
const TSX = ["--import", "tsx", "scripts/soak.ts"];
/**
 * Its bundle, built from the same sources before the tests (test/helpers/built-scripts.ts), for the rest:
 * under tsx each process compiled its modules anew, and the soak, whose server then ran under tsx too,
 * outran its 60 s on a machine busy with other work. The server it starts is dist/main.js, built alike.
 */
const BUILT = [builtScript("scripts/soak.ts")];

function soak(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  script = BUILT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [...script, ...args], {
    cwd: ROOT,
    env,
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("npm run soak's command line", () => {
  it("prints its usage on --help, naming every option", async () => {
    const { code, stdout } = await soak(["--help"], process.env, TSX);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run soak -- \[options\]/);
    for (const option of ["--duration", "--connections", "--warmup", "--skills-dir"]) {
      expect(stdout).toContain(option);
    }
  });

  // `npm run soak` built dist/ first (`npm run build && …`): --help and a wrong option waited a minute on it.
  it.each<[string[], number, RegExp]>([
    [["--help"], 0, /^Usage: npm run soak -- \[options\]/m],
    [["--duration", "abc"], 2, /^soak: --duration "abc" is not a whole number ≥ 1$/m],
  ])("answers %j through npm run soak without building dist/", async (args, code, said) => {
    const run = await runNpmScript("soak", args);
    expect({ code: run.code, built: run.built }).toEqual({ code, built: false });
    expect(`${run.stdout}${run.stderr}`).toMatch(said);
  });

  it("refuses an unknown option with the valid ones, then the usage", async () => {
    const { code, stdout, stderr } = await soak(["--durations", "5"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /^soak: unknown option --durations; valid: --duration, --connections, --warmup, --skills-dir, --build, --help \(-h\)\n\nUsage: npm run soak/,
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

  // Its server inherited the shell's settings: an exported API_KEYS refused every request of the soak.
  it("serves its load whatever settings the shell exports", async () => {
    const env = { ...process.env, API_KEYS: "a-key-the-soak-does-not-send", RATE_LIMIT_PER_MINUTE: "1" };
    const { code, stdout } = await soak(["--duration", "2", "--warmup", "1", "--connections", "2"], env);
    expect(stdout).toMatch(/^errors: 0 \(connection errors 0, timeouts 0, non-2xx 0\)$/m);
    expect(code).toBe(0);
  });
});
