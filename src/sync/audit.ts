import { auditFile, auditSkillMetadata, type Finding, isUnsafe } from "../audit/index.js";
import { SKILL_DOCUMENT } from "../catalog/index.js";

/**
 * The findings of the project's audit in the files about to be installed as skill `name` (paths as
 * `<name>/<path>`), worst first: each file's rules, and the name and description its entry gives.
 */
export function auditDownload(
  name: string,
  files: ReadonlyMap<string, Uint8Array>,
  frontmatter: { readonly name: string; readonly description: string },
): Finding[] {
  const findings: Finding[] = [];
  for (const [file, bytes] of files) {
    const where = `${name}/${file}`;
    findings.push(...auditFile(where, bytes));
    if (file === SKILL_DOCUMENT) {
      // A YAML block scalar (`description: >` or `|`) ends in a line break and may hold more: line breaks
      // and tabs are seen as the spaces the catalog reads them as, not hidden characters.
      const description = frontmatter.description.replace(/[\t\n\r]/g, " ");
      const text = Buffer.from(bytes).toString("utf8");
      findings.push(...auditSkillMetadata(where, { name: frontmatter.name, description }, text));
    }
  }
  return findings.sort((a, b) => Number(isUnsafe(b)) - Number(isUnsafe(a)));
}

/** One finding as a line says it: where, which rule, what. */
export function describeFinding(found: Finding): string {
  return `${found.path}:${found.line}: ${found.rule}: ${found.detail}`;
}
