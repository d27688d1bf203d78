import { createHash } from "node:crypto";
import type { Skill } from "./types.js";

/** `sha256:` and the lowercase hex digest of `bytes`, as the Skills extension writes digests. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * What saved data takes a file to be: its size and its modification time in whole seconds (image layers,
 * tar and many copies keep no finer time). What was worked out from a file is used again while its stamp
 * holds. An edit that keeps the size within the same second, or a copy that keeps times over changed files,
 * goes unseen: `--build-index` again after one.
 */
export function fileStamp(file: { readonly size: number; readonly mtimeMs: number }): string {
  return `${file.size}:${Math.floor(file.mtimeMs / 1000)}`;
}

/**
 * Which real file `real` is, whatever path led to it: its device and inode, which every symlink and hard
 * link to it shares. A number past 2^53 is rounded, and two files could share it, so its real path stands
 * in for it then (a file known by it is still read once for its symlinks, once for each hard link).
 */
export function fileIdentity(stats: { readonly dev: number; readonly ino: number }, real: string): string {
  return Number.isSafeInteger(stats.dev) && Number.isSafeInteger(stats.ino)
    ? `${stats.dev}:${stats.ino}`
    : `path:${real}`;
}

/**
 * What a catalog's skills are, in order, as the saved index records it: each skill's id, pack, group and
 * description, and the stamp of its SKILL.md, which stands for its text (reading every text again would
 * cost what working it out does). The skills' other files are not in it: what depends on them (the
 * inspection) checks each skill's files itself.
 */
export function catalogFingerprint(skills: readonly Skill[]): { skills: number; digest: Uint8Array } {
  const parts: string[] = [];
  for (const { id, pack, group, description, document } of skills) {
    parts.push(id, pack, group ?? "", description, fileStamp(document));
  }
  // The parts' lengths first: a part may hold any character, so no separator alone keeps lists apart.
  const digest = createHash("sha256")
    .update(parts.map((part) => part.length).join(","))
    .update("\n")
    .update(parts.join("\n"))
    .digest();
  return { skills: skills.length, digest };
}
