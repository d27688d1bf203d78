import { randomBytes } from "node:crypto";
import path from "node:path";
import { makeTree, skillMd, type TempTree, type TreeEntry, writeTree } from "./skill-tree.js";

/** A PNG header followed by noise: binary by any measure. */
export const PNG_BYTES = Buffer.concat([
  Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"),
  randomBytes(200),
]);
/**
 * `text` written in Unicode tag characters (U+E0000 plus each ASCII code): invisible in every editor and
 * in review, as "ASCII smuggling" hides instructions.
 */
export function inTagCharacters(text: string): string {
  return [...text].map((letter) => String.fromCodePoint(0xe0000 + letter.charCodeAt(0))).join("");
}

export const SECRET = "TOP-SECRET-OUTSIDE-THE-CATALOG";
/** Over the 256 KiB answer cap, in numbered lines so a cut is visible. */
export const BIG_TEXT = Array.from({ length: 12_000 }, (_, i) => `line ${i} of a long reference file`).join(
  "\n",
);

/**
 * The catalog most tests use: a flat pack (alpha), a grouped pack with pack-level files (beta), and a
 * pack sharing a group name with beta (gamma). `skills/` is the skills folder; `outside/` is not served.
 */
const STANDARD_TREE: Record<string, TreeEntry> = {
  "outside/secret.txt": SECRET,
  "skills/alpha/one/SKILL.md": skillMd("one", "First alpha skill for parsing invoices."),
  "skills/alpha/two/SKILL.md": skillMd(
    "two",
    "Second alpha skill about webhooks.",
    "# Two\nSee references/guide.md.",
  ),
  "skills/alpha/two/references/guide.md": "# Guide to two\n",
  "skills/alpha/two/scripts/run.sh": "#!/bin/sh\necho two\n",
  "skills/alpha/two/assets/logo.png": PNG_BYTES,
  "skills/alpha/two/big.txt": BIG_TEXT,
  "skills/alpha/two/.hidden/secret.md": "hidden",
  "skills/alpha/two/.env": "TOKEN=hidden",
  "skills/alpha/two/nested/inner/notes.md": "# Notes, deep in two\n",
  "skills/alpha/two/link-in.md": { symlink: "references/guide.md" },
  "skills/alpha/two/link-out.md": { symlink: "../../../outside/secret.txt" },
  "skills/alpha/two/link-abs.md": { symlink: "/etc/passwd" },
  "skills/alpha/shared-name/SKILL.md": skillMd("shared-name", "Alpha's copy of a shared name."),
  "skills/alpha/README.md": "# Alpha pack\n",
  "skills/beta/shared/guide.md": "# Beta shared guide\n",
  "skills/beta/shared/deep/note.md": "a deep note\n",
  "skills/beta/tools/hammer/SKILL.md": skillMd(
    "hammer",
    "Drive nails with a hammer.",
    "Read shared/guide.md.",
  ),
  "skills/beta/tools/saw/SKILL.md": skillMd("saw", "Cut planks with a saw."),
  "skills/beta/docs/writer/SKILL.md": skillMd("writer", "Write documentation pages."),
  "skills/beta/docs/deep/down/editor/SKILL.md": skillMd("editor", "Edit documentation deep in a tree."),
  "skills/beta/shared-name/SKILL.md": skillMd("shared-name", "Beta's copy of a shared name."),
  "skills/gamma/tools/drill/SKILL.md": skillMd("drill", "Drill holes in walls."),
  "skills/.hidden-pack/ghost/SKILL.md": skillMd("ghost", "Never served."),
  "skills/sources.json": JSON.stringify({ sources: [{ name: "alpha", ref: "a".repeat(40) }] }),
};

export interface StandardCatalog extends TempTree {
  readonly skillsDir: string;
}

export async function makeStandardCatalog(extra: Record<string, TreeEntry> = {}): Promise<StandardCatalog> {
  const tree = await makeTree(STANDARD_TREE);
  await writeTree(tree.dir, extra);
  return { ...tree, skillsDir: path.join(tree.dir, "skills") };
}
