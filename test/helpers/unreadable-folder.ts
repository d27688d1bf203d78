import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeDeepFolders, removeDeepTree } from "./deep-tree.js";
import type { User } from "./process.js";
import { makeTree, skillMd } from "./skill-tree.js";

/** `nobody` on Debian and most Linux systems. */
const NOBODY: User = { uid: 65534, gid: 65534 };

interface UnreadableFolder {
  /** The skills folder. */
  readonly dir: string;
  /**
   * Whom to run the server or a script as, for mode 000 to deny it: root reads everything, so a test run
   * as root runs them as `nobody`; anyone else runs them as themselves.
   */
  readonly user: User | undefined;
  remove(): void;
}

/**
 * A skills folder that broke the server's start (issue 24): one skill it can serve (`p/ok`, holding
 * `notes.md`), beside a file, a folder and a SKILL.md of mode 000, a file name in Latin-1, and folders
 * nested past PATH_MAX.
 */
export async function makeUnreadableFolder(): Promise<UnreadableFolder> {
  const tree = await makeTree({
    "p/ok/SKILL.md": skillMd("ok"),
    "p/ok/notes.md": "# Notes\n",
    "p/ok/secret.md": "mode 000",
    "p/ok/locked/inside.md": "in a folder of mode 000",
    "p/closed/SKILL.md": skillMd("closed"),
  });
  const { dir } = tree;
  writeFileSync(Buffer.from(`${dir}/p/ok/caf\xe9.txt`, "latin1"), "a Latin-1 name");
  mkdirSync(path.join(dir, "p/ok/deep"));
  makeDeepFolders(path.join(dir, "p/ok/deep"), Array(22).fill("d".repeat(200)), {
    name: "bottom.md",
    content: "past PATH_MAX",
  });
  for (const locked of ["p/ok/secret.md", "p/ok/locked", "p/closed/SKILL.md"]) {
    chmodSync(path.join(dir, locked), 0o000);
  }
  // mkdtemp made it 0700: another user must be able to enter it.
  chmodSync(dir, 0o755);
  return {
    dir,
    user: process.getuid?.() === 0 ? NOBODY : undefined,
    remove: () => {
      chmodSync(path.join(dir, "p/ok/locked"), 0o700);
      removeDeepTree(dir);
    },
  };
}
