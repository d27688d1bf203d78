import { describe, expect, it } from "vitest";
import type { SkillSource } from "../../scripts/fetch-skills/manifest.js";
import { fetchSummary, githubPage, repinSummary } from "../../scripts/fetch-skills/summary.js";

const OLD = "a333fbbea692d95a724a14db38697c73f80e8300";
const NEW = "44c9b2d6e889982ac18c27d05a19fefe335194e1";

function source(name: string, repo: string): SkillSource {
  return { name, repo, ref: OLD, path: "skills", extras: [], branch: undefined };
}

describe("githubPage", () => {
  it.each([
    ["https://github.com/penpot/penpot-ai-kit.git", "https://github.com/penpot/penpot-ai-kit"],
    ["https://github.com/obra/superpowers", "https://github.com/obra/superpowers"],
    ["git@github.com:anthropics/skills.git", "https://github.com/anthropics/skills"],
    ["ssh://git@github.com/n8n-io/skills.git", "https://github.com/n8n-io/skills"],
  ])("knows %s is on GitHub", (repo, page) => {
    expect(githubPage(repo)).toBe(page);
  });

  it.each([
    "file:///srv/mirrors/skills",
    "https://gitlab.com/group/skills.git",
    "https://github.com.evil.example/o/r.git",
    "https://github.com/only-owner",
  ])("gives no page for %s", (repo) => {
    expect(githubPage(repo)).toBeUndefined();
  });
});

describe("repinSummary", () => {
  it("links a compare view only for GitHub repositories and counts the moved sources", () => {
    const summary = repinSummary(
      [
        {
          source: source("penpot", "https://github.com/penpot/penpot-ai-kit.git"),
          tracks: "main",
          from: OLD,
          to: NEW,
        },
        { source: source("mirror", "file:///srv/mirror"), tracks: "HEAD", from: OLD, to: NEW },
        { source: source("n8n", "https://github.com/n8n-io/skills.git"), tracks: "HEAD", from: OLD, to: OLD },
      ],
      [],
    );
    expect(summary).toContain(
      `| penpot | main | \`a333fbb\` | \`44c9b2d\` | [compare](https://github.com/penpot/penpot-ai-kit/compare/${OLD}...${NEW}) |`,
    );
    expect(summary).toContain("| mirror | HEAD | `a333fbb` | `44c9b2d` | moved |");
    expect(summary).toContain("| n8n | HEAD | `a333fbb` | `a333fbb` | unchanged |");
    expect(summary).toContain("2 of 3 sources moved: penpot, mirror.");
  });
  // A manifest of one source was told "all 1 sources already pin the head of what they track".
  it("says nothing moved of one source as of one", () => {
    const one = { source: source("docs", "file:///srv/docs"), tracks: "HEAD", from: OLD, to: OLD };
    expect(repinSummary([one], [])).toContain(
      "Nothing moved: the one source already pins the head of what it tracks.",
    );
    expect(repinSummary([one, { ...one, source: source("more", "file:///srv/more") }], [])).toContain(
      "Nothing moved: all 2 sources already pin the head of what they track.",
    );
  });

  it("keeps a source that cannot be repinned in the table, its reason in one cell", () => {
    const summary = repinSummary(
      [{ source: source("n8n", "https://github.com/n8n-io/skills.git"), tracks: "HEAD", from: OLD, to: NEW }],
      [
        {
          source: source("gone", "file:///srv/gone"),
          reason: "cannot list file:///srv/gone: fatal: a | b\n  c",
        },
      ],
    );
    expect(summary).toContain(
      "| gone | HEAD | `a333fbb` | – | **not repinned**: `cannot list file:///srv/gone: fatal: a \\| b c` |",
    );
    expect(summary).toContain("1 of 2 sources moved: n8n.");
  });

  it("shows the remote's words inert: no mention, issue reference or link comes alive in the pull request", () => {
    const reason = "fatal: remote: Fixes #1, cc @octocat: see https://evil.example ``x`` \u202Eevil";
    const summary = repinSummary(
      [{ source: source("n8n", "https://github.com/n8n-io/skills.git"), tracks: "HEAD", from: OLD, to: NEW }],
      [{ source: source("hostile", "https://git.example/skills.git"), reason }],
    );
    const row = summary.split("\n").find((line) => line.startsWith("| hostile |")) ?? "";
    expect(row).toContain(
      "**not repinned**: ```fatal: remote: Fixes #1, cc @octocat: see https://evil.example ``x`` {U+202E}evil``` |",
    );
    // Outside the one code span, nothing of the remote's words is left.
    expect(row.replace(/```.*```/, "")).not.toMatch(/@|#1|https/);
  });

  // A remote's message of 200,000 runs of backticks overflowed the stack, and the summary was never written.
  it("shows a remote's message of hundreds of thousands of backtick runs in one cell", () => {
    const reason = `fatal: remote: ${"a`".repeat(300_000)}`;
    const summary = repinSummary(
      [{ source: source("n8n", "https://github.com/n8n-io/skills.git"), tracks: "HEAD", from: OLD, to: NEW }],
      [{ source: source("hostile", "https://git.example/skills.git"), reason }],
    );
    const row = summary.split("\n").find((line) => line.startsWith("| hostile |")) ?? "";
    expect(row).toBe(`| hostile | HEAD | \`a333fbb\` | – | **not repinned**: \`\` ${reason} \`\` |`);
  });
});

describe("fetchSummary", () => {
  it("lists each pack with its commit, linked on GitHub, and the totals", () => {
    const record = (name: string, repo: string, skills: number) => ({
      name,
      repo,
      ref: NEW,
      path: "skills",
      extras: [],
      skills,
      fetchedAt: "2026-01-02T03:04:05.000Z",
      skipped: [],
    });
    const summary = fetchSummary([
      {
        record: record("superpowers", "https://github.com/obra/superpowers.git", 14),
        method: "shallow",
        seconds: 1.25,
      },
      { record: record("local", "file:///srv/local", 3), method: "kept", seconds: 0 },
    ]);
    expect(summary).toContain(
      `| superpowers | [\`44c9b2d\`](https://github.com/obra/superpowers/commit/${NEW}) | 14 | shallow, 1.3 s |`,
    );
    expect(summary).toContain("| local | `44c9b2d` | 3 | kept from the previous fetch |");
    expect(summary).toContain("2 packs, 17 skills.");
  });
});
