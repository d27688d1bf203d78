import { isDeepStrictEqual } from "node:util";
import { type Skill, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";
import { digestOf, SKILL_DOCUMENT } from "../catalog/index.js";
import { forEachLimited } from "./at-once.js";
import { readFailure } from "./connect-failure.js";
import { describeError } from "./describe-error.js";
import { listedFiles, skillRoot } from "./listed-files.js";
import type { InstalledSkill } from "./lock.js";
import { type DownloadedSkill, PackFilesOverRoom, TEXT_FILE, withPackFiles } from "./pack-files.js";
import { otherFileAnswered } from "./read-answers.js";
import {
  ANSWER_ENVELOPE_BYTES,
  CitedFileUnreadable,
  type DownloadContext,
  PACK_ANSWER_BYTES,
  PARALLEL_READS,
  type PackRead,
  readPackFile,
} from "./reads.js";

/**
 * `kept`: how many of the skill's files came from the disk (the copy installed, or what an earlier run
 * verified and kept), not the server.
 */
type Download = { readonly skill: DownloadedSkill; readonly kept: number } | { readonly refused: string };

/**
 * The bytes of a file of the skill already on disk (in the copy installed, or kept verified by an earlier
 * run), by its path in the skill, when they have `size` and `digest`; else undefined.
 */
type OnDiskReader = (path: string, size: number, digest: string) => Promise<Uint8Array | undefined>;

/**
 * Reads every file of `entry` through the SDK's SkillsClient, which checks each one's size and digest
 * against the entry (and SKILL.md's frontmatter), then the pack files its text cites. A file the copy
 * installed, or an earlier run kept, holds with the size and digest the entry lists (`onDisk`) is
 * taken from there instead; not SKILL.md, whose frontmatter only the SDK's read checks against the
 * entry. Pack files have no digest in the extension: each is read. Refused, with the reason, when
 * anything cannot be written as the entry describes: a dynamic skill, a path that is not a plain name below
 * the skill, more than the extension's limits, a file that fails its check. Rejects with
 * {@link PackFilesOverRoom} as soon as the pack files it keeps come to more than `packRoom` bytes: they are
 * held with its files until it is written.
 */
export async function downloadSkill(
  entry: Skill,
  context: DownloadContext,
  onDisk?: OnDiskReader,
  packRoom = Number.POSITIVE_INFINITY,
): Promise<Download> {
  const root = skillRoot(entry);
  const listed = listedFiles(entry, root);
  if ("refused" in listed) return listed;
  const total = listed.reduce((sum, file) => sum + file.size, 0);
  const files = new Map<string, Uint8Array>();
  let kept = 0;
  try {
    await forEachLimited(listed, PARALLEL_READS, async (file) => {
      const here =
        file.path === SKILL_DOCUMENT ? undefined : await onDisk?.(file.path, file.size, file.digest);
      if (here !== undefined) {
        files.set(file.path, here);
        kept += 1;
        return;
      }
      // Base64 is 4/3 of the bytes; JSON writes a text's quotes and line breaks as two characters.
      const expected = 2 * file.size + ANSWER_ENVELOPE_BYTES;
      const read = await context.packReads
        .send(expected, () => context.skills.read(entry, file.uri))
        .catch((error: unknown) => {
          if (error instanceof SkillVerificationError) throw error;
          const instead = context.readAnswers.instead(file.uri);
          throw instead.length > 0
            ? new OtherFileAnswered(file.uri, instead)
            : new FileUnread(`reading ${file.uri} failed`, { cause: error });
        });
      files.set(file.path, read.bytes);
    });
  } catch (error) {
    return { refused: whyUnread(error, context.server) };
  }
  const ordered = new Map(listed.map((file) => [file.path, files.get(file.path) ?? new Uint8Array()]));
  try {
    const read = (uri: string, room: number) => readPackFile(uri, room, context);
    const skill = await withPackFiles(entry, root, ordered, total, context.skillRoots, read, packRoom);
    return { skill, kept };
  } catch (error) {
    if (error instanceof PackFilesOverRoom) throw error;
    return { refused: whyUnread(error, context.server) };
  }
}

/**
 * Whether a download of `entry` now would write the pack files and SKILL.md that `installed` holds: the
 * same files cited and served with the same bytes, and the same files left out. Its own files are not
 * read again: the text ones come from the copy installed (`readInstalled`, by path), which must hold the
 * entry's bytes (SKILL.md followed by the note on the files left out, if any). A cited file the server
 * did not serve at install time is looked up again, so one it serves since is copied. Rejects with
 * {@link CitedFileUnreadable} when a file it cites cannot be read, and with {@link PackFilesOverRoom} as
 * soon as the pack files it holds, as the server serves them now, come to more than `packRoom` bytes.
 */
export async function citedFilesCurrent(
  entry: Skill,
  installed: Pick<InstalledSkill, "files" | "packFiles">,
  readInstalled: (path: string) => Promise<Uint8Array | undefined>,
  context: DownloadContext,
  packRoom = Number.POSITIVE_INFINITY,
): Promise<boolean> {
  const root = skillRoot(entry);
  const listed = listedFiles(entry, root);
  if ("refused" in listed) return false;
  const files = new Map<string, Uint8Array>();
  for (const file of listed) {
    // Only text is searched for citations: the bytes of the other files play no part.
    if (!TEXT_FILE.test(file.path)) {
      files.set(file.path, new Uint8Array());
      continue;
    }
    const bytes = (await readInstalled(file.path))?.subarray(0, file.size);
    if (bytes === undefined || digestOf(bytes) !== file.digest) return false;
    files.set(file.path, bytes);
  }
  const total = listed.reduce((sum, file) => sum + file.size, 0);
  // The lookups a download makes one after another, each waiting for the last: those of the copy
  // installed are the same while the server serves the same, so they are read at once first, and the
  // download below finds them read. A server that changed only costs the reads it then makes itself.
  const foreseen: string[] = [];
  const asInstalled = installedPackFiles(installed, readInstalled);
  await withPackFiles(entry, root, new Map(files), total, context.skillRoots, (uri) => {
    foreseen.push(uri);
    return asInstalled(uri);
  });
  // Each with the room a first read gives: one larger is read by the check itself, within its room.
  await forEachLimited(foreseen, PARALLEL_READS, async (uri) => {
    await readPackFile(uri, PACK_ANSWER_BYTES, context);
  });
  const read = (uri: string, room: number) => readPackFile(uri, room, context);
  const now = await withPackFiles(entry, root, files, total, context.skillRoots, read, packRoom);
  const document = now.files.get(SKILL_DOCUMENT);
  return (
    isDeepStrictEqual(now.packFiles, installed.packFiles) &&
    (document === undefined ? undefined : digestOf(document)) === installed.files[SKILL_DOCUMENT]
  );
}

/** Each pack file as the installed copy holds it, by the URI it came from; any other URI as not served. */
function installedPackFiles(
  installed: Pick<InstalledSkill, "packFiles">,
  readInstalled: (path: string) => Promise<Uint8Array | undefined>,
): (uri: string) => Promise<PackRead> {
  const byUri = new Map(Object.entries(installed.packFiles).map(([file, record]) => [record.uri, file]));
  return async (uri) => {
    const file = byUri.get(uri);
    const bytes = file === undefined ? undefined : await readInstalled(file);
    return bytes === undefined ? { missing: true } : { bytes };
  };
}

/** Reading a file of the skill from the server failed: its cause says why. */
class FileUnread extends Error {
  override name = "FileUnread";
}

/**
 * The server answered the read of a file with another file's URI (or several): the SDK says only that
 * its answer held nothing for the file asked, as if the server had sent nothing.
 */
class OtherFileAnswered extends Error {
  override name = "OtherFileAnswered";
  constructor(asked: string, instead: readonly string[]) {
    super(`${otherFileAnswered(asked, instead)}: nothing of the skill was written`);
  }
}

/**
 * Why reading a skill's files failed, in words: a failed check names the file and what did not match; a
 * read that failed through the environment's proxy with no answer from the server (or the proxy's own
 * status) names the proxy, as a failure to connect does, and what to check.
 */
function whyUnread(error: unknown, server: URL): string {
  if (error instanceof FileUnread || error instanceof CitedFileUnreadable) {
    const { said, hint } = readFailure(error, server);
    return `${said}${hint}`;
  }
  if (error instanceof OtherFileAnswered) return error.message;
  if (error instanceof SkillVerificationError) {
    const what = {
      unlisted: "not in its entry",
      size: "wrong size",
      digest: "wrong digest",
      frontmatter: "frontmatter differs",
    };
    return `${error.uri} failed verification (${what[error.reason]}): ${error.message}`;
  }
  return describeError(error);
}
