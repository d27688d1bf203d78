/**
 * Creating a run lock or a takeover marker: whole, and only if nothing is there. Written beside it, then
 * linked, so that no run ever reads one half-written.
 */
import { randomUUID } from "node:crypto";
import { linkSync, rmSync, writeFileSync } from "node:fs";
import { link, rm, writeFile } from "node:fs/promises";

/**
 * Creates `file` holding `text`, whole, unless something is there: false then. The file written beside
 * it (`<file>.<id>.tmp`) is removed, unless the process is killed first (see removeLeftovers).
 */
export async function createWith(file: string, text: string): Promise<boolean> {
  const written = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(written, text, { flag: "wx", mode: 0o644 });
    await link(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(written, { force: true });
  }
}

/** createWith, synchronously: for a stop signal's handler, which cannot wait. */
export function createWithSync(file: string, text: string): boolean {
  const written = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(written, text, { flag: "wx", mode: 0o644 });
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(written, { force: true });
  }
}
