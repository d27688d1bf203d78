import { mkdir } from "node:fs/promises";
import path from "node:path";
import { FetcherError } from "./errors.js";
import type { SkillSource } from "./manifest.js";
import {
  type FetchedPack,
  type FetchPlan,
  fetchSourceInto,
  type SourceRecord,
  skippedRecords,
  writeSources,
} from "./output.js";
import type { Repin } from "./repin.js";
import type { Review, ReviewedSource } from "./review-contract.js";
import { makeWorkFolder, removeTree } from "./work-folder.js";

/**
 * GitHub refuses pull request bodies over 65,536 characters. The review gets what the table of moved
 * sources, the table of fetched packs and check-skills (which the workflow appends) leave of that.
 */
const REVIEW_BUDGET = 52_000;

/** The review of a repin, and the moved sources whose old commit could not be fetched to compare with. */
export interface RepinReview extends Review {
  readonly pinGone: ReadonlySet<string>;
}

/**
 * What changes for agents in a repin: fetches each moved source's old commit (the new one is in `out`
 * already) into a folder beside `out`, and hands both to the review. A source whose old commit cannot
 * be fetched is reviewed as if it were new, saying why; the repin itself is done either way.
 */
export async function reviewRepins(
  repins: readonly Repin[],
  plan: Pick<FetchPlan, "out" | "cache" | "limits" | "log" | "signal">,
  packs: readonly Pick<FetchedPack, "record" | "leftOut">[],
): Promise<RepinReview> {
  const moved = repins.filter((repin) => repin.from !== repin.to);
  const temp = await makeWorkFolder(plan.out);
  try {
    const before = path.join(temp, "before");
    await mkdir(before);
    const stores = plan.cache ?? path.join(temp, "stores");
    const sources: ReviewedSource[] = [];
    const records: Pick<SourceRecord, "name" | "ref" | "skipped">[] = [];
    for (const { source, from, to } of moved) {
      const leftOutAfter = packs.find((pack) => pack.record.name === source.name)?.leftOut ?? [];
      const reviewed = {
        name: source.name,
        repo: source.repo,
        path: source.path,
        extras: source.extras,
        from,
        to,
      };
      const old: SkillSource = { ...source, ref: from };
      try {
        const work = path.join(temp, "work", source.name);
        const into = path.join(before, source.name);
        const { skipped } = await fetchSourceInto(old, stores, work, into, plan);
        records.push({ name: source.name, ref: from, skipped: skippedRecords(skipped) });
        const leftOutBefore = new Set(skipped.map(({ entry }) => leftOutKey(entry)));
        const leftOut = leftOutAfter.map((file) => ({ ...file, new: !leftOutBefore.has(leftOutKey(file)) }));
        sources.push({ ...reviewed, leftOut });
      } catch (error) {
        // A stopped git is no commit gone upstream.
        plan.signal?.throwIfAborted();
        if (!(error instanceof FetcherError)) throw error;
        plan.log(`${source.name}: warning: the review compares with nothing: ${error.message}`);
        await removeTree(path.join(before, source.name));
        const leftOut = leftOutAfter.map((file) => ({ ...file, new: true }));
        sources.push({ ...reviewed, missing: error.message, leftOut });
      }
    }
    await writeSources(before, records);
    // Loaded here, not imported at the top: the review needs the server's catalog and audit (src/), and
    // the image's skills stage, which only fetches, has neither.
    const { reviewRepin } = await import("../repin-review/index.js");
    // Awaited here, so that the old commits are removed only once the review has read them.
    const review = await reviewRepin({
      before,
      after: plan.out,
      sources,
      budget: REVIEW_BUDGET,
      signal: plan.signal,
    });
    const pinGone = new Set(sources.flatMap((source) => (source.missing === undefined ? [] : [source.name])));
    return { ...review, pinGone };
  } finally {
    await removeTree(temp);
  }
}

/** A file left out, as compared across the two commits: the same path left out for the same reason. */
function leftOutKey({ path, reason }: { readonly path: string; readonly reason: string }): string {
  return `${path}\n${reason}`;
}
