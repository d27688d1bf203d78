import path from "node:path";
import { errorMessage, MAX_PACK_DESCRIPTION } from "../shared/index.js";
import { describeFsError } from "./folders.js";
import { ChangedFileError, readFileBeside } from "./open.js";
import type { CatalogIssue, SkippedFile, Source } from "./types.js";

/**
 * The largest `sources.json` read. The fetcher writes a few KiB (a commit and the files it skipped for each
 * source, at most 20,000 files a source); one larger is not its.
 */
const MAX_SOURCES_BYTES = 16 * 1024 * 1024;

/**
 * `sources.json`, written by the fetcher, says which commit each pack came from and what it did not copy;
 * the one reader of it. A file that is not such a record is ignored, with a warning.
 */
export function readSources(root: string, issues: CatalogIssue[]): Source[] {
  let text: string;
  try {
    text = readFileBeside(path.join(root, "sources.json"), MAX_SOURCES_BYTES).toString("utf8");
  } catch (error) {
    // A FIFO there would have stalled the start until something wrote to it.
    if (error instanceof ChangedFileError) {
      issues.push({ severity: "warning", path: "sources.json", reason: `ignored: it ${error.change}` });
    } else if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      // Missing is the usual case (skills the fetcher did not write); one that could not be read (EACCES)
      // was ignored without a word, and /health then named no commit.
      issues.push({
        severity: "warning",
        path: "sources.json",
        reason: `ignored: it ${describeFsError(error)}`,
      });
    }
    return [];
  }
  try {
    const data: unknown = JSON.parse(text);
    const list = (data as { sources?: unknown }).sources;
    if (!Array.isArray(list)) throw new Error("no sources list");
    return list.map((item: unknown) => {
      const { name, ref, description, skipped } = item as {
        name?: unknown;
        ref?: unknown;
        description?: unknown;
        skipped?: unknown;
      };
      if (typeof name !== "string" || typeof ref !== "string") throw new Error("a source lacks name or ref");
      const source = { name, ref, skipped: skippedOf(name, skipped) };
      if (description === undefined) return source;
      const text = typeof description === "string" ? description.replace(/\s+/g, " ").trim() : "";
      if (text === "" || text.length > MAX_PACK_DESCRIPTION) {
        throw new Error(
          `the description of ${name} is not a text of 1 to ${MAX_PACK_DESCRIPTION} characters`,
        );
      }
      return { ...source, description: text };
    });
  } catch (error) {
    issues.push({
      severity: "warning",
      path: "sources.json",
      reason: `ignored: ${errorMessage(error)}`,
    });
    return [];
  }
}

/** A source's `skipped` list: what the fetcher did not copy, each with a path and a reason. */
function skippedOf(name: string, skipped: unknown): SkippedFile[] {
  if (skipped === undefined) return [];
  const valid =
    Array.isArray(skipped) &&
    skipped.every((entry: unknown) => {
      const { path: where, reason } = (entry ?? {}) as { path?: unknown; reason?: unknown };
      return typeof where === "string" && typeof reason === "string";
    });
  if (!valid) throw new Error(`the skipped files of ${name} are not a list of paths and reasons`);
  return (skipped as SkippedFile[]).map(({ path: where, reason }) => ({ path: where, reason }));
}
