/**
 * The pack folders of a skills folder: its visible sub-folders that can be named, one of those whose names
 * differ only in letter case or Unicode normalization, each other reported as an issue.
 */

import { visible } from "../shared/index.js";
import { FoldedPaths, spelledOtherwise } from "./case-collisions.js";
import { readFolder } from "./folders.js";
import { nameRuleViolation } from "./frontmatter.js";
import { unnameableReason } from "./paths.js";
import { CatalogError, kernelFileSystem } from "./skills-folder.js";
import type { CatalogIssue } from "./types.js";
import { isHidden, resolveEntry, unreadable } from "./walk.js";

/** Pack folders are the visible sub-folders of the skills folder; files there (sources.json) are not packs. */
export function listPackFolders(root: string, issues: CatalogIssue[]): string[] {
  const names: string[] = [];
  const problems: CatalogIssue[] = [];
  const entries = readFolder(root, "", problems);
  if (entries === undefined) throw new CatalogError(`Skills folder ${root}: ${problems[0]?.reason}`);
  issues.push(...problems);
  for (const entry of entries) {
    if (isHidden(entry.name) || entry.isFile()) continue;
    const resolved = resolveEntry(root, entry, undefined);
    if (resolved.kind === "unreadable") issues.push(unreadable(visible(entry.name), resolved));
    if (resolved.kind !== "folder") continue;
    // A link to /proc or /sys: the same endless walk as a skills folder there.
    const kernel = kernelFileSystem(resolved.real);
    if (kernel !== undefined) {
      issues.push({ severity: "skipped", path: visible(entry.name), reason: `pack folder is in ${kernel}` });
      continue;
    }
    if (/[\s,\\]/.test(entry.name)) {
      issues.push({
        severity: "skipped",
        path: visible(entry.name),
        reason: "pack folder names cannot hold spaces, commas or backslashes",
      });
      continue;
    }
    const unnameable = unnameableReason(entry.name, "folder");
    if (unnameable !== undefined) {
      issues.push({ severity: "skipped", path: visible(entry.name), reason: unnameable });
      continue;
    }
    names.push(entry.name);
  }
  const served = withoutDuplicateNames(names, issues);
  for (const name of served) {
    const violation = nameRuleViolation(name);
    if (violation) issues.push({ severity: "warning", path: name, reason: `pack name ${violation}` });
  }
  return served;
}

/**
 * `names` less the pack folders whose names are another's in another letter case or Unicode normalization
 * (`Docs` and `docs`; `café` with one `é`, and with `e` and a combining accent): each reads as the other,
 * `X-Skill-Pack`, `?pack=` and `pack/name` find a pack in any case, and a case-insensitive file system
 * (macOS, Windows), where `skills-mcp sync` writes and reviewers check out, holds one of the two. Two such
 * packs were both served, and which one a client's input selected depended on how it was spelled. The one
 * in lowercase, as the name rule asks, is served, else the one spelled in NFC, as input methods type it,
 * else the first by name; each other is left out with an issue naming the one served.
 */
function withoutDuplicateNames(names: readonly string[], issues: CatalogIssue[]): string[] {
  const leftOut = new FoldedPaths().admit(names);
  for (const [name, kept] of leftOut) {
    issues.push({
      severity: "skipped",
      path: visible(name),
      reason: `duplicate pack name: it is "${visible(kept)}" in another ${spelledOtherwise(name, kept)}, which is served instead`,
    });
  }
  return names.filter((name) => !leftOut.has(name));
}
