/**
 * A stop signal ends the process as it would by default, and where the system cannot send it (Windows
 * sends only SIGINT, SIGTERM and SIGKILL) with the status a shell reports for it.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { builtModule } from "./helpers/built-scripts.js";
import { tempFolder } from "./sync/helpers.js";

const STOP_SIGNALS = builtModule("src/shared/stop-signals.ts");

/** Ends itself by SIGHUP, as a sync does once its terminal closed, where sending it fails as on Windows. */
const ENDING = `
const { endBySignal } = await import(${JSON.stringify(STOP_SIGNALS)});
process.kill = () => {
  const error = new Error("kill ENOSYS");
  error.code = "ENOSYS";
  throw error;
};
endBySignal("SIGHUP");
`;

let root: Awaited<ReturnType<typeof tempFolder>>;
beforeEach(async () => {
  root = await tempFolder();
});
afterEach(async () => {
  await root.remove();
});

// Windows raises SIGHUP when a console window closes, and cannot send it: the sync, its folder already
// tidied, ended on an uncaught error (status 1) instead.
it("ends with 128 + the signal's number where the system cannot send it", { timeout: 60_000 }, async () => {
  const script = path.join(root.dir, "ending.mjs");
  await writeFile(script, ENDING);
  const ended = await new Promise<number | null>((resolve) =>
    execFile(process.execPath, [script], { timeout: 60_000 }, (error) =>
      resolve(error === null ? 0 : typeof error.code === "number" ? error.code : null),
    ),
  );
  expect(ended).toBe(129);
});
