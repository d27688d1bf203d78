import { longestBacktickRun, plural } from "../../src/shared/index.js";
import type { FetchedPack } from "./output.js";
import type { HeldBack, Repin, Unresolved } from "./repin.js";
import { shortRef } from "./review-contract.js";

const GITHUB =
  /^(?:(?:https?|git|ssh):\/\/(?:[^@/]+@)?github\.com\/|git@github\.com:)([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i;

/** `https://github.com/<owner>/<repo>` when `repo` is a GitHub clone URL (HTTPS, SSH or git://). */
export function githubPage(repo: string): string | undefined {
  const match = GITHUB.exec(repo);
  return match ? `https://github.com/${match[1]}/${match[2]}` : undefined;
}

/** Pull request material for `--update`: old and new commit per source, compare links on GitHub. */
export function repinSummary(
  repins: readonly Repin[],
  unresolved: readonly Unresolved[],
  heldBack: readonly HeldBack[] = [],
): string {
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
  const stuck = unresolved.map(
    ({ source, reason }) =>
      `| ${source.name} | ${source.branch ?? "HEAD"} | \`${shortRef(source.ref)}\` | – | **not repinned**: ${cell(reason)} |`,
  );
  const held = heldBack.map(
    ({ repin, reason }) =>
      `| ${repin.source.name} | ${repin.tracks} | \`${shortRef(repin.from)}\` | – | **held back**: \`${shortRef(repin.to)}\` fails: ${cell(reason)} |`,
  );
  const failed = heldBack.filter(({ finding }) => finding === undefined);
  const forReview = heldBack.flatMap(({ repin, finding }) =>
    finding === undefined ? [] : [{ repin, finding }],
  );
  const total = repins.length + unresolved.length + heldBack.length;
  const outcome =
    moved.length === 0
      ? forReview.length === 0
        ? total === 1
          ? "Nothing moved: the one source already pins the head of what it tracks."
          : `Nothing moved: all ${total} sources already pin the head of what they track.`
        : `No source repinned: every source that moved is held back for its review (${forReview.map(({ repin }) => repin.source.name).join(", ")}).`
      : `${moved.length} of ${total} sources moved: ${moved.map((repin) => repin.source.name).join(", ")}.`;
  const warning =
    unresolved.length === 0
      ? []
      : [
          `> [!WARNING]\n> ${unresolved.length === 1 ? "1 source could not be repinned and keeps its pin" : `${unresolved.length} sources could not be repinned and keep their pins`}: ` +
            `${unresolved.map(({ source }) => source.name).join(", ")}. ` +
            "A branch or repository may be gone: fix `repo` or `branch` in skills.toml, or remove the source.",
          "",
        ];
  const heldWarning =
    failed.length === 0
      ? []
      : [
          `> [!WARNING]\n> ${failed.length === 1 ? "1 source was held back at its pin, its new head failing the fetch or the load check" : `${failed.length} sources were held back at their pins, their new heads failing the fetch or the load check`}: ` +
            `${failed.map(({ repin }) => repin.source.name).join(", ")}. ` +
            "The table says why; the next run tries the new head again. If upstream moved its skills, fix `path` or `extras` in skills.toml; if it outgrew a limit, raise `--max-files` or `--max-mib`; " +
            "if the server would not serve it (no valid skill, or a high finding of the audit in every one), that is for upstream to fix, or remove the source.",
          "",
        ];
  const reviewWarning =
    forReview.length === 0
      ? []
      : [
          `> [!WARNING]\n> ${forReview.length === 1 ? "1 source was held back at its pin, its new head bringing a new high finding of the audit" : `${forReview.length} sources were held back at their pins, their new heads bringing a new high finding of the audit`}, ` +
            "so that no other bump waits on its review: " +
            `${forReview.map(({ repin, finding }) => `${repin.source.name} (${cell(`${finding.path}:${finding.line}: ${finding.rule}`)})`).join(", ")}. ` +
            "Each such bump is offered alone, for a person to review: the weekly workflow opens a pull request of its own for it, on branch `skills/held/<source>`, " +
            "its `skills audit` status failing; by hand, `npm run fetch-skills -- --update --source <source>` repins it alone. The next run tries the new head again.",
          "",
        ];
  return [
    moved.length === 0
      ? forReview.length === 0
        ? "## Skills: nothing moved"
        : "## Skills: every bump held back"
      : "## Skills repinned",
    "",
    ...warning,
    ...heldWarning,
    ...reviewWarning,
    "| Source | Tracks | From | To | Changes |",
    "|---|---|---|---|---|",
    ...rows,
    ...stuck,
    ...held,
    "",
    outcome,
    "",
  ].join("\n");
}

/**
 * Words from git, which may be the remote's own (`remote:` lines), as one cell of a Markdown table that
 * GitHub leaves inert: a code span, in which no @mention, issue reference (`Fixes #1` would close the
 * issue on merge) or link comes alive, with a fence longer than any run of backticks in it; control and
 * format characters (a bidi override) written as their code points; no pipe ends the cell, no newline
 * the row.
 */
function cell(text: string): string {
  const shown = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(
      /[\p{Cc}\p{Cf}]/gu,
      (character) => `{U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}}`,
    );
  const fence = "`".repeat(longestBacktickRun(shown) + 1);
  const pad = shown.startsWith("`") || shown.endsWith("`") ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`.replaceAll("|", "\\|");
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
    `${plural(packs.length, "pack")}, ${plural(skills, "skill")}.`,
    "",
  ].join("\n");
}
