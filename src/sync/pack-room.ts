import { SKILL_LIMITS } from "@modelcontextprotocol/client/ext/skills";
import type { ByteBudget } from "../budget/index.js";
import { PackFilesOverRoom } from "./pack-files.js";

/** Skills fetched at once; their reads share PackReads' bounds on requests and on the bytes of answers. */
export const PARALLEL_DOWNLOADS = 8;

/**
 * What the pack files a skill cites may hold while it is fetched or checked with others: half of a
 * skill's share of the budget, the other half its own files, so that 8 skills of up to 1 MiB are still
 * fetched (or checked) at once.
 */
const PACK_FILES_SHARE = SKILL_LIMITS.bytes / (2 * PARALLEL_DOWNLOADS);

/**
 * `work` on a skill, holding in `budget` its `bytes` (pack files among them: `packBytes`) and
 * PACK_FILES_SHARE more, its pack files given that room; when they need more ({@link PackFilesOverRoom}),
 * `work` again, holding a skill's whole limit, so alone, its pack files bounded only by the download's own limits.
 * It never waits for more room while holding some, so two skills cannot wait on each other.
 */
export async function withPackRoom<T>(
  budget: ByteBudget,
  bytes: number,
  packBytes: number,
  work: (packRoom: number) => Promise<T>,
): Promise<T> {
  const holding = async (held: number, packRoom: number) => {
    const giveBack = await budget.take(held);
    try {
      return await work(packRoom);
    } finally {
      giveBack();
    }
  };
  try {
    return await holding(bytes + PACK_FILES_SHARE, packBytes + PACK_FILES_SHARE);
  } catch (error) {
    if (!(error instanceof PackFilesOverRoom)) throw error;
  }
  return holding(SKILL_LIMITS.bytes, Number.POSITIVE_INFINITY);
}
