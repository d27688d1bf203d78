import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A file's content, or a symlink to create at that path (its target as written, relative or absolute). */
export type TreeEntry = string | Buffer | { readonly symlink: string };

export interface TempTree {
  readonly dir: string;
  remove(): Promise<void>;
}

/** Writes `entries` (path → content) under a new temporary folder. */
export async function makeTree(entries: Record<string, TreeEntry>): Promise<TempTree> {
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-test-"));
  await writeTree(dir, entries);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeTree(dir: string, entries: Record<string, TreeEntry>): Promise<void> {
  for (const [relative, entry] of Object.entries(entries)) {
    const full = path.join(dir, relative);
    await mkdir(path.dirname(full), { recursive: true });
    if (typeof entry === "object" && "symlink" in entry) await symlink(entry.symlink, full);
    else await writeFile(full, entry);
  }
}

/** A minimal valid SKILL.md. */
export function skillMd(name: string, description = `Does ${name} things.`, body = `# ${name}\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}
