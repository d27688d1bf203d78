import { describe, expect, it } from "vitest";
import { markdownCode, markdownText, tableRow } from "../../scripts/audit-markdown.js";
import { longestBacktickRun } from "../../src/shared/index.js";

describe("markdownText", () => {
  // Upstream descriptions reach the weekly pull request's body: each of these notified someone, linked
  // somewhere or closed an issue on merge.
  it("shows mentions, issue references and links as inline code, which GitHub leaves alone", () => {
    expect(markdownText("Ping @octocat and @acme/security-team.")).toBe(
      "Ping `@octocat` and `@acme/security-team`.",
    );
    expect(markdownText("Fixes https://github.com/acme/app/issues/1 (and acme/app#2, #3, GH-4)")).toBe(
      "Fixes `https://github.com/acme/app/issues/1` (and `acme/app#2`, `#3`, `GH-4`)",
    );
    expect(markdownText("Log in at www.evil.example or mail admin@evil.example")).toBe(
      "Log in at `www.evil.example` or mail `admin@evil.example`",
    );
  });

  it("leaves other text as written, its Markdown escaped", () => {
    expect(markdownText("Says hello, **politely** (#hashtag, issue 7).")).toBe(
      "Says hello, \\*\\*politely\\*\\* (\\#hashtag, issue 7).",
    );
    expect(markdownText("`@x` <b>")).toBe("`` `@x` `` \\<b\\>");
  });

  it("escapes a pipe only in a table, where a cell would end at it (a list showed `p\\|q`)", () => {
    expect(markdownCode("p|q")).toBe("`p|q`");
    expect(markdownText("a | b")).toBe("a | b");
    expect(tableRow([markdownCode("p|q"), markdownText("a | b"), markdownCode("p\\|q")])).toBe(
      "| `p\\|q` | a \\| b | `p\\\\|q` |",
    );
  });
});

describe("markdownCode", () => {
  it("fences text with a run of backticks longer than any in it", () => {
    expect(markdownCode("a ``b`` c")).toBe("```a ``b`` c```");
    expect(markdownCode("`a`")).toBe("`` `a` ``");
    expect(longestBacktickRun("x ``` y ` z ``")).toBe(3);
    expect(longestBacktickRun("none")).toBe(0);
  });

  // A frontmatter key or a remote's message of 200,000 runs of backticks overflowed the stack.
  it("fences text of hundreds of thousands of backtick runs", () => {
    const text = "`a".repeat(300_000);
    expect(markdownCode(text)).toBe(`\`\` ${text} \`\``);
  });
});
