/**
 * How many SKILL.md bodies the repin review keeps of each pack: it kept the first 1,000 added and 1,000
 * changed of every pack, so a bump over many packs held 1,000 of each per pack (4 packs adding 1,200
 * SKILL.md files of 20 KB each: 666 MiB), though the whole review fits one pull request body. The bound is
 * now over the whole review, and every body a review that fits can show is still kept.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KEPT_BODIES, keptPerPack } from "../../scripts/repin-review/compare.js";

const sum = (counts: readonly number[]) => counts.reduce((total, count) => total + count, 0);

describe("keptPerPack", () => {
  it("keeps every body of an ordinary bump, and the first 1,000 of a single large pack", () => {
    expect(keptPerPack([3, 0, 60], KEPT_BODIES)).toEqual([3, 0, 60]);
    expect(keptPerPack([5000], KEPT_BODIES)).toEqual([1000]);
  });

  it("keeps no more than the bound over several packs, the same first ones of each", () => {
    const kept = keptPerPack([5000, 5000, 5000, 10], KEPT_BODIES);
    expect(kept).toEqual([330, 330, 330, 10]);
    expect(sum(kept)).toBeLessThanOrEqual(KEPT_BODIES);
  });

  it("keeps one body of each of the first packs when even one of each is too many", () => {
    const kept = keptPerPack(
      Array.from({ length: 1500 }, () => 2),
      KEPT_BODIES,
    );
    expect(sum(kept)).toBe(KEPT_BODIES);
    expect(kept.slice(0, KEPT_BODIES).every((count) => count === 1)).toBe(true);
    expect(kept.slice(KEPT_BODIES).every((count) => count === 0)).toBe(true);
  });

  it("keeps every body that a list limit within the bound shows", () => {
    const counts = fc.array(fc.nat({ max: 3000 }), { maxLength: 30 });
    fc.assert(
      // Any limit: the review cuts its lists to the longest that fits (see render.ts).
      fc.property(
        counts,
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 3000 }),
        (packs, bound, limit) => {
          const kept = keptPerPack(packs, bound);
          expect(sum(kept)).toBeLessThanOrEqual(bound);
          expect(kept.map((count, pack) => Math.min(count, packs[pack] ?? 0))).toEqual(kept);
          const shown = packs.map((count) => Math.min(count, limit));
          if (sum(shown) <= bound)
            expect(kept.map((count, pack) => Math.max(count, shown[pack] ?? 0))).toEqual(kept);
        },
      ),
    );
  });
});
