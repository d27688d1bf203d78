/** The work of `bench/repin-review-moves.ts`, loaded once its command line is read. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { comparePacks } from "../scripts/repin-review/compare.js";
import { digestOf, type PackSide, type ServedFile } from "../scripts/repin-review/served.js";
import type { CatalogFile, Skill } from "../src/catalog/index.js";

/** The pack's shape: how many skills, of how many supporting files each, written under `root`. */
interface Shape {
  readonly root: string;
  readonly skills: number;
  readonly files: number;
}

/** A pack of `skills` skills, file `<name><f>.md` of skill `s` holding `text(s, f)`. */
function packOf(
  { root, skills, files }: Shape,
  tag: string,
  name: string,
  text: (skill: number, file: number) => string,
): PackSide {
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
      own.set(inSkill, { path: inSkill, size: 0, mtimeMs: 0, source: "", identity: "" });
    }
    all.push({
      id: `pack/${folder}`,
      name: folder,
      description,
      pack: "pack",
      group: undefined,
      folder,
      document: { path: "SKILL.md", size: 0, mtimeMs: 0, source: "", identity: "" },
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

/** Times the comparison of `skills` skills of `files` files each, nothing to pair, then every file moved. */
export async function main(skills: number, files: number): Promise<void> {
  const shape = { root: mkdtempSync(path.join(tmpdir(), "repin-review-moves-")), skills, files };
  try {
    console.log(`${skills} skills of ${files} files each, all removed, and as many added:`);
    const old = packOf(shape, "old", "f", (skill, file) => lines("old", skill, file, "v1"));
    await timed(
      "unlike",
      old,
      packOf(shape, "new", "g", (skill, file) => lines("new", skill, file, "v2")),
    );
    // Skill n's files are those of skill n + 1, edited: each moved into another skill.
    await timed(
      "moved",
      old,
      packOf(shape, "moved", "g", (skill, file) => lines("old", (skill + 1) % skills, file, "v2")),
    );
  } finally {
    rmSync(shape.root, { recursive: true, force: true });
  }
}
