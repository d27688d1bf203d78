/**
 * What telling files moved between skills costs the repin review's comparison of one pack (no fetch, no
 * render): writes `--skills` skills of `--files` supporting files each, and a new commit of the same
 * skills whose files are all removed and as many others added, and times comparePacks on them twice: once
 * with every added file unlike any old one (nothing to pair: the cost of looking), once with each an
 * edited copy of a file of another skill (every one moved). Prints the time and how many files each found
 * moved. Asserts nothing.
 *
 *   npx tsx bench/repin-review-moves.ts [--skills 2000] [--files 5]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { comparePacks } from "../scripts/repin-review/compare.js";
import { digestOf, type PackSide, type ServedFile } from "../scripts/repin-review/served.js";
import type { CatalogFile, Skill } from "../src/catalog/index.js";
import { readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench/repin-review-moves",
  usage: "usage: npx tsx bench/repin-review-moves.ts [--skills 2000] [--files 5]",
};
const { values } = readCommandLine(COMMAND, {
  skills: { type: "string", default: "2000" },
  files: { type: "string", default: "5" },
});
const skills = wholeNumber(COMMAND, "--skills", values.skills);
const files = wholeNumber(COMMAND, "--files", values.files);
const root = mkdtempSync(path.join(tmpdir(), "repin-review-moves-"));

/** A pack of `skills` skills, file `<name><f>.md` of skill `s` holding `text(s, f)`. */
function packOf(tag: string, name: string, text: (skill: number, file: number) => string): PackSide {
  const all: Skill[] = [];
  const served = new Map<string, ServedFile>();
  const write = (inPack: string, content: string) => {
    const where = path.join(root, tag, inPack);
    mkdirSync(path.dirname(where), { recursive: true });
    writeFileSync(where, content);
    served.set(inPack, {
      digest: digestOf(Buffer.from(content)),
      notAudited: undefined,
      source: where,
      executable: false,
    });
  };
  for (let skill = 0; skill < skills; skill++) {
    const folder = `skill-${skill}`;
    const description = `Does the task number ${skill}.`;
    write(`${folder}/SKILL.md`, `---\nname: ${folder}\ndescription: ${description}\n---\n# ${folder}\n`);
    const own = new Map<string, CatalogFile>();
    for (let file = 0; file < files; file++) {
      const inSkill = `references/${name}${file}.md`;
      write(`${folder}/${inSkill}`, text(skill, file));
      own.set(inSkill, { path: inSkill, size: 0, mtimeMs: 0, source: "" });
    }
    all.push({
      id: `pack/${folder}`,
      name: folder,
      description,
      pack: "pack",
      group: undefined,
      folder,
      document: { path: "SKILL.md", size: 0, mtimeMs: 0, source: "" },
      files: own,
      modelInvocable: true,
      userInvocable: true,
    });
  }
  return { skills: all, packFiles: new Set(), files: served };
}

const lines = (tag: string, skill: number, file: number, edit: string) =>
  `${Array.from({ length: 30 }, (_, line) => `${tag} skill ${skill}, file ${file}, line ${line}`).join("\n")}\n${edit}\n`;

async function timed(label: string, before: PackSide, after: PackSide): Promise<void> {
  const start = performance.now();
  const changes = await comparePacks(before, after, async () => {});
  const moved = changes.skillFiles.filter((file) => file.skills !== undefined).length;
  console.log(
    `${label}: ${Math.round(performance.now() - start)} ms, ${changes.skillFiles.length} file changes, ${moved} moved into another skill`,
  );
}

try {
  console.log(`${skills} skills of ${files} files each, all removed, and as many added:`);
  const old = packOf("old", "f", (skill, file) => lines("old", skill, file, "v1"));
  await timed(
    "unlike",
    old,
    packOf("new", "g", (skill, file) => lines("new", skill, file, "v2")),
  );
  // Skill n's files are those of skill n + 1, edited: each moved into another skill.
  await timed(
    "moved",
    old,
    packOf("moved", "g", (skill, file) => lines("old", (skill + 1) % skills, file, "v2")),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
