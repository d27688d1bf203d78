import { randomUUID } from "node:crypto";
import { lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * How old a temporary file of an earlier `--build-index` must be to count as left by a run that was
 * killed: a run writes its file in one call and renames it at once, so one this old is not being written.
 */
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

/**
 * Writes `bytes` to `file` whole or not at all: to a temporary file beside it, then renamed over it.
 * First removes the temporary files that earlier runs, killed before their rename, left beside it (those
 * of this very pattern, older than {@link STALE_TEMPORARY_MS}); returns their names. Throws what the file
 * system throws, once its own temporary file is removed.
 */
export function writeSavedIndexFile(file: string, bytes: Uint8Array): string[] {
  const removed = removeStaleTemporaryFiles(file);
  // Unique, so that two builds writing to one shared folder never write into the same file.
  const written = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(written, bytes);
    renameSync(written, file);
  } catch (error) {
    rmSync(written, { force: true });
    throw error;
  }
  return removed;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

function removeStaleTemporaryFiles(file: string): string[] {
  const now = Date.now();
  const folder = path.dirname(file);
  const pattern = new RegExp(`^${escapeRegExp(path.basename(file))}\\.${UUID}\\.tmp$`);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => pattern.test(name));
  } catch {
    // No folder to clean: the write says what is wrong with it.
    return [];
  }
  return names.filter((name) => {
    const full = path.join(folder, name);
    try {
      const stat = lstatSync(full);
      if (!stat.isFile() || now - stat.mtimeMs < STALE_TEMPORARY_MS) return false;
      rmSync(full);
      return true;
    } catch {
      // Removed meanwhile by another run, or not ours to remove: left as it is.
      return false;
    }
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
