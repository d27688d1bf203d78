import type { Pack } from "../catalog/index.js";
import { namedInProse, plural } from "../shared/index.js";
import { defineTool } from "./tool.js";

/** Past this many groups a pack's answer shows its largest groups only, so huge catalogs stay readable. */
const LISTED_GROUPS = 25;
/** Past the largest groups, this many smaller ones are named on one line. */
const NAMED_GROUPS = 200;
/** Past this many pack and group lines, the answer lists packs only, each with its group count. */
const LISTED_LINES = 120;
/** Past this many packs, the answer lists the largest and counts the rest. */
const LISTED_PACKS = 100;

export const listPacksTool = defineTool({
  name: "list_packs",
  description: "List skill packs and their groups with skill counts. Start here to browse.",
  inputSchema: {},
  run: (_args, context) => formatPacks(context.listed.packs, (pack) => context.preview.describePack(pack)),
});

/**
 * Each pack with its skill count, what it is for (when `describe` says) and its groups. A catalog too
 * large to read that way (tens of thousands of skills in hundreds of packs) gets its packs only, the
 * largest hundred, and a count of the rest: a model facing that many does better searching with
 * list_skills(query) than reading on.
 */
export function formatPacks(packs: readonly Pack[], describe?: (pack: Pack) => string): string {
  // Counted before any pack is described: a description ranks the terms of the pack's skills, which the
  // packs-only answer would drop (seconds of them at 50k skills in 333 packs).
  const tooMany = packs.flatMap((pack) => formatPack(pack, undefined)).length > LISTED_LINES;
  const lines = tooMany ? summarizePacks(packs) : packs.flatMap((pack) => formatPack(pack, describe));
  const hasFiles = packs.some((pack) => pack.files.size > 0);
  lines.push(
    `Next: list_skills(pack="<pack or group>") or list_skills(query="<task>")${hasFiles ? "; read_pack_file(pack) lists a pack's shared files" : ""}.`,
  );
  return lines.join("\n");
}

function summarizePacks(packs: readonly Pack[]): string[] {
  const largest = new Set(
    [...packs]
      .sort((a, b) => b.skills.length - a.skills.length || (a.name < b.name ? -1 : 1))
      .slice(0, LISTED_PACKS),
  );
  const skills = packs.reduce((sum, pack) => sum + pack.skills.length, 0);
  const lines = [
    `${plural(packs.length, "pack")}, ${plural(skills, "skill")}; ` +
      (packs.length > largest.size ? `the ${largest.size} largest, ` : "") +
      "each with its group count:",
  ];
  for (const pack of packs) {
    if (!largest.has(pack)) continue;
    const groups = pack.groups.length > 0 ? ` in ${plural(pack.groups.length, "group")}` : "";
    lines.push(`${namedInProse(pack.name)}: ${plural(pack.skills.length, "skill")}${groups}${filesOf(pack)}`);
  }
  const rest = packs.filter((pack) => !largest.has(pack));
  if (rest.length > 0) {
    const restSkills = rest.reduce((sum, pack) => sum + pack.skills.length, 0);
    lines.push(`… and ${plural(rest.length, "smaller pack")} with ${plural(restSkills, "skill")}`);
  }
  return lines;
}

function filesOf(pack: Pack): string {
  return pack.files.size > 0 ? `, ${plural(pack.files.size, "pack file")}` : "";
}

function formatPack(pack: Pack, describe: ((pack: Pack) => string) | undefined): string[] {
  const files = filesOf(pack);
  const description = describe?.(pack) ?? "";
  const lines = [
    `${namedInProse(pack.name)}: ${plural(pack.skills.length, "skill")}${files}${description === "" ? "" : ` — ${description}`}`,
  ];
  const groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length).slice(0, LISTED_GROUPS);
  const shown = new Set(groups);
  for (const group of pack.groups) {
    if (shown.has(group)) lines.push(`  ${namedInProse(group.name)}: ${group.skills.length}`);
  }
  // The smaller groups on one line, named all the same: a group no answer names cannot be selected. A
  // pack of thousands of groups names some; past them, search finds their skills.
  const hidden = pack.groups.filter((group) => !shown.has(group));
  if (hidden.length > 0) {
    const named = hidden
      .slice(0, NAMED_GROUPS)
      .map((group) => `${namedInProse(group.name)} ${group.skills.length}`);
    const unnamed = hidden.length - named.length;
    const rest = unnamed > 0 ? `, and ${unnamed} more: list_skills(query) searches them` : "";
    lines.push(`  … and ${plural(hidden.length, "smaller group")}: ${named.join(", ")}${rest}`);
  }
  return lines;
}
