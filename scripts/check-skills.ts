/**
 * Loads a skills folder exactly as the server will and prints, as Markdown, what it would serve and what
 * it would leave out; exits 1 when the server would refuse to start. The weekly repin appends its output
 * to the pull request's summary, so a reviewer sees what an upstream change did to the catalog.
 *
 *   npm run check-skills -- [skills folder]     (default: ./skills)
 */
import { existsSync } from "node:fs";
import { CatalogError, type CatalogIssue, loadCatalog } from "../src/catalog/index.js";
import { tolerateClosedOutput } from "./closed-output.js";

function report(dir: string): string {
  const { catalog, issues } = loadCatalog(dir);
  const packs = catalog.everything.packs.map((pack) => `${pack.name} ${pack.skills.length}`).join(", ");
  const skipped = issues.filter((issue) => issue.severity === "skipped");
  const lines = [
    "### Catalog check",
    "",
    `${catalog.everything.skills.length} skills in ${catalog.everything.packs.length} packs (${packs}); ` +
      `${skipped.length} left out, ${issues.length - skipped.length} warnings.`,
  ];
  if (issues.length > 0) lines.push("", ...issues.map(formatIssue));
  return `${lines.join("\n")}\n`;
}

function formatIssue(issue: CatalogIssue): string {
  return `- ${issue.severity === "skipped" ? "left out" : "warning"}: \`${issue.path}\`: ${issue.reason}`;
}

tolerateClosedOutput();
const folder = process.argv[2];
try {
  if (folder === undefined && !existsSync("skills")) {
    // Not a refusal: with no ./skills (and no SKILLS_DIR) the server serves its bundled examples.
    process.stderr.write(
      "check-skills: there is no ./skills to check: `npm run fetch-skills` writes it from skills.toml " +
        "(without it the server serves the bundled examples). To check another folder: " +
        "npm run check-skills -- <folder>\n",
    );
    process.exitCode = 1;
  } else {
    process.stdout.write(report(folder ?? "skills"));
  }
} catch (error) {
  if (!(error instanceof CatalogError)) throw error;
  process.stderr.write(`check-skills: the server would refuse to start: ${error.message}\n`);
  process.exitCode = 1;
}
