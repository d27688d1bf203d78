import type { Pack } from "../catalog/index.js";
import { namedInProse } from "../shared/index.js";
import { bytes, cut } from "./room.js";

/**
 * One line per pack, each within its share of `room`: shares grow with a pack's skills (by their square
 * root, so that small packs are still said), and what a line leaves unused goes to the lines after it.
 * When even the packs' names do not fit, the largest are said and the rest counted.
 */
export function packLines(
  packs: readonly Pack[],
  room: number,
  line: (pack: Pack, share: number) => string,
): string[] {
  const shown = packsFitting(packs, room);
  const rest = packs.length - shown.length;
  const restLine = rest > 0 ? `… and ${rest} more packs: list_packs names them.` : "";
  let left = room - (restLine === "" ? 0 : bytes(restLine) + 1);
  let weightLeft = shown.reduce((sum, pack) => sum + weightOf(pack), 0);
  const lines: string[] = [];
  for (const pack of shown) {
    const share = Math.floor((left * weightOf(pack)) / weightLeft) - 1;
    const text = cut(line(pack, share), share);
    lines.push(text);
    left -= bytes(text) + 1;
    weightLeft -= weightOf(pack);
  }
  return restLine === "" ? lines : [...lines, restLine];
}

/** Past a few hundred packs not every name fits: the largest packs, in their order, as many as fit. */
function packsFitting(packs: readonly Pack[], room: number): readonly Pack[] {
  const least = (pack: Pack) => bytes(namedInProse(pack.name)) + 40;
  if (packs.reduce((sum, pack) => sum + least(pack), 0) <= room) return packs;
  const largest = [...packs].sort((a, b) => b.skills.length - a.skills.length);
  const kept = new Set<Pack>();
  let used = 0;
  for (const pack of largest) {
    if (used + least(pack) > room - 60) break;
    kept.add(pack);
    used += least(pack);
  }
  return packs.filter((pack) => kept.has(pack));
}

function weightOf(pack: Pack): number {
  return Math.sqrt(pack.skills.length) + 2;
}
