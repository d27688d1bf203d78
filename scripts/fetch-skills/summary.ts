import type { FetchedPack } from "./output.js";
import type { Repin } from "./repin.js";
import { shortRef } from "./review-contract.js";

const GITHUB =
  /^(?:(?:https?|git|ssh):\/\/(?:[^@/]+@)?github\.com\/|git@github\.com:)([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i;

/** `https://github.com/<owner>/<repo>` when `repo` is a GitHub clone URL (HTTPS, SSH or git://). */
export function githubPage(repo: string): string | undefined {
  const match = GITHUB.exec(repo);
  return match ? `https://github.com/${match[1]}/${match[2]}` : undefined;
}

/** Pull request material for `--update`: old and new commit per source, compare links on GitHub. */
export function repinSummary(repins: readonly Repin[]): string {
  const moved = repins.filter((repin) => repin.from !== repin.to);
  const rows = repins.map((repin) => {
    const page = githubPage(repin.source.repo);
    const change =
      repin.from === repin.to
        ? "unchanged"
        : page
          ? `[compare](${page}/compare/${repin.from}...${repin.to})`
          : "moved";
    return `| ${repin.source.name} | ${repin.tracks} | \`${shortRef(repin.from)}\` | \`${shortRef(repin.to)}\` | ${change} |`;
  });
  const outcome =
    moved.length === 0
      ? `Nothing moved: all ${repins.length} sources already pin the head of what they track.`
      : `${moved.length} of ${repins.length} sources moved: ${moved.map((repin) => repin.source.name).join(", ")}.`;
  return [
    moved.length === 0 ? "## Skills: nothing moved" : "## Skills repinned",
    "",
    "| Source | Tracks | From | To | Changes |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    outcome,
    "",
  ].join("\n");
}

/** What a fetch put in the skills folder: one row per pack. */
export function fetchSummary(packs: readonly FetchedPack[]): string {
  const rows = packs.map(({ record, method, seconds }) => {
    const page = githubPage(record.repo);
    const commit = page
      ? `[\`${shortRef(record.ref)}\`](${page}/commit/${record.ref})`
      : `\`${shortRef(record.ref)}\``;
    const how = method === "kept" ? "kept from the previous fetch" : `${method}, ${seconds.toFixed(1)} s`;
    return `| ${record.name} | ${commit} | ${record.skills} | ${how} |`;
  });
  const skills = packs.reduce((sum, pack) => sum + pack.record.skills, 0);
  return [
    "## Skills fetched",
    "",
    "| Pack | Commit | Skills | How |",
    "|---|---|---|---|",
    ...rows,
    "",
    `${count(packs.length, "pack")}, ${count(skills, "skill")}.`,
    "",
  ].join("\n");
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
