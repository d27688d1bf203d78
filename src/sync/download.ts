import { isDeepStrictEqual } from "node:util";
import { type Client, ProtocolError } from "@modelcontextprotocol/client";
import {
  SKILL_LIMITS,
  type Skill,
  type SkillsClient,
  SkillVerificationError,
} from "@modelcontextprotocol/client/ext/skills";
import { ByteBudget } from "../budget/index.js";
import { SKILL_DOCUMENT } from "../catalog/index.js";
import { citedPaths } from "./citations.js";
import { MAX_ANSWER_BYTES, withAnswerLimit } from "./connection.js";
import { describeError } from "./describe-error.js";
import { digestOf } from "./folder.js";
import type { InstalledSkill, PackFileRecord } from "./lock.js";
import { clashingPaths, pathBelow, relativePathProblem } from "./paths.js";

/** A skill read from the server and checked, ready to be written: every file by its path in the skill's folder. */
export interface DownloadedSkill {
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly packFiles: Readonly<Record<string, PackFileRecord>>;
  /** What the skill cites that was not copied, each in words; the installed SKILL.md says so too. */
  readonly leftOut: readonly string[];
}

/** `kept`: how many of the skill's files came from the copy installed, not the server. */
export type Download =
  | { readonly skill: DownloadedSkill; readonly kept: number }
  | { readonly refused: string };

/**
 * The bytes of a file of the copy installed, by its path in the skill, when they have `size` and `digest`;
 * else undefined.
 */
export type InstalledFileReader = (
  path: string,
  size: number,
  digest: string,
) => Promise<Uint8Array | undefined>;

/** What one run reads once for all skills: which URIs are skills, and the pack files already read. */
export interface DownloadContext {
  readonly client: Client;
  readonly skills: SkillsClient;
  /** The root folder URI of every skill the server lists: a file below one is another skill's, not a pack file. */
  readonly skillRoots: ReadonlySet<string>;
  /** Pack file reads by URI, shared by the skills that cite the same file. */
  readonly packReads: PackReads;
}

/** A pack file as read: its bytes, or that the server serves nothing there. */
export type PackRead = { readonly bytes: Uint8Array } | { readonly missing: true };

/**
 * A pack file looked up within a room: as read, or `over` when its answer went past those bytes and was
 * read no further, nor kept.
 */
export type PackLookup = PackRead | { readonly over: number };

/**
 * How a pack file is read by its URI, its answer read no further than `room` bytes: from the server, or
 * as a run foresees it.
 */
type PackFileReader = (uri: string, room: number) => Promise<PackLookup>;

/**
 * A file a skill cites could not be read: no answer came (a cut connection, a proxy's 502, a timeout), so
 * whether the server serves it, and what, is unknown. An error the server answers with means it serves
 * nothing there.
 */
export class CitedFileUnreadable extends Error {
  override name = "CitedFileUnreadable";
}

/**
 * The pack files a skill keeps came to more than the room its download was given for them: it stopped,
 * and may be fetched again with more room.
 */
export class PackFilesOverRoom extends Error {
  override name = "PackFilesOverRoom";
}

/** Bytes of pack file reads kept for the skills that cite the same file. */
const PACK_READS_BYTES = 32 * 1024 * 1024;

/**
 * Bytes of answers read at once, for every read of the run together: room for the largest answer sync
 * reads, so that 8 reads at once hold about what one large read holds, not 8 times that.
 */
const ANSWER_BUDGET_BYTES = MAX_ANSWER_BYTES;
/** What a pack file's answer is given room for first: pack files carry no size in the extension. */
const PACK_ANSWER_BYTES = 1024 * 1024;
/** Room in an answer for its JSON-RPC envelope, beyond a file's bytes. */
const ANSWER_ENVELOPE_BYTES = 64 * 1024;

/**
 * The pack files read lately, by URI, up to `maxBytes` (the oldest go first): a server that answers every
 * citation with a large file cannot make sync hold all of them for the whole run. Also the run's reads
 * under way: skills checked or downloaded at once that cite the same file share one request, no more than
 * PARALLEL_READS are sent at once, and their answers share ANSWER_BUDGET_BYTES, however many skills are
 * checked or downloaded together.
 */
export class PackReads {
  readonly #reads = new Map<string, PackRead>();
  readonly #underWay = new Map<string, Promise<PackLookup>>();
  readonly #slots = new Slots(PARALLEL_READS);
  readonly #answers = new ByteBudget(ANSWER_BUDGET_BYTES);
  #bytes = 0;

  constructor(readonly maxBytes = PACK_READS_BYTES) {}

  /**
   * `send` (a request to the server) once a slot is free and its answer, of up to `expected` bytes, fits
   * in the budget of answers read at once: an answer past that is not read, and the request is sent again
   * with room for the largest answer (alone, if need be). A server cannot make the reads at once hold more
   * than the budget by answering more than it said, only cost a request more.
   */
  send<T>(expected: number, send: () => Promise<T>): Promise<T> {
    return this.#slots.run(async () => {
      const room = Math.min(expected, MAX_ANSWER_BYTES);
      const first = await this.#holding(room, () => withAnswerLimit(room, send));
      return "answer" in first ? first.answer : this.#holding(MAX_ANSWER_BYTES, send);
    });
  }

  async #holding<T>(bytes: number, work: () => Promise<T>): Promise<T> {
    const giveBack = await this.#answers.take(bytes);
    try {
      return await work();
    } finally {
      giveBack();
    }
  }

  /**
   * The read of `uri` kept, or the one under way when it was given as much room, or else `load` sent
   * with room for `room` bytes of answer (1 MiB first, and then, when the answer passed that, `room`): a
   * pack file's answer is never read past the room of the skill that cites it, whatever the server sends.
   * What was read whole is kept.
   */
  async read(uri: string, room: number, load: () => Promise<PackRead>): Promise<PackLookup> {
    const kept = this.get(uri);
    if (kept !== undefined) return kept;
    const pending = this.#underWay.get(uri);
    if (pending !== undefined) {
      const shared = await pending;
      if ("bytes" in shared || "missing" in shared || shared.over >= room) return shared;
    }
    const started = this.#slots.run(async (): Promise<PackLookup> => {
      let within = Math.min(room, PACK_ANSWER_BYTES, MAX_ANSWER_BYTES);
      let answer = await this.#holding(within, () => withAnswerLimit(within, load));
      if ("passed" in answer && room > within) {
        within = Math.min(room, MAX_ANSWER_BYTES);
        answer = await this.#holding(within, () => withAnswerLimit(within, load));
      }
      if ("passed" in answer) return { over: within };
      this.keep(uri, answer.answer);
      return answer.answer;
    });
    this.#underWay.set(uri, started);
    try {
      return await started;
    } finally {
      if (this.#underWay.get(uri) === started) this.#underWay.delete(uri);
    }
  }

  /** The bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get(uri: string): PackRead | undefined {
    const read = this.#reads.get(uri);
    if (read !== undefined) {
      this.#reads.delete(uri);
      this.#reads.set(uri, read);
    }
    return read;
  }

  keep(uri: string, read: PackRead): void {
    const size = sizeOf(uri, read);
    if (size > this.maxBytes || this.#reads.has(uri)) return;
    this.#reads.set(uri, read);
    this.#bytes += size;
    for (const [oldest, old] of this.#reads) {
      if (this.#bytes <= this.maxBytes) break;
      this.#reads.delete(oldest);
      this.#bytes -= sizeOf(oldest, old);
    }
  }
}

function sizeOf(uri: string, read: PackRead): number {
  return uri.length + ("bytes" in read ? read.bytes.length : 0);
}

/** Files read from the server at once, for the whole run. */
const PARALLEL_READS = 8;
/** Distinct paths of a skill's text looked up as pack files, and reads spent on them, at most. */
const MAX_CITATIONS = 32;
const MAX_PACK_LOOKUPS = 64;
const TEXT_FILE = /\.(?:md|markdown|txt)$/i;
const CLASH =
  "cannot both be written: one name on a case-insensitive system, or a file where a folder must be";

/** The folder URI of a skill (its SKILL.md URI without `/SKILL.md`), in canonical form. */
export function skillRoot(entry: Skill): string {
  return new URL(entry.uri).href.replace(/\/SKILL\.md$/, "");
}

/**
 * Why sync cannot write `entry` as it lists its files, or undefined: a dynamic skill, a path that is not a
 * plain name below the skill, more than the extension's limits, two paths one file. Told from the entry
 * alone, so that a check or a dry run foresees it as the sync does.
 */
export function entryProblem(entry: Skill): string | undefined {
  const listed = listedFiles(entry, skillRoot(entry));
  return "refused" in listed ? listed.refused : undefined;
}

interface ListedFile {
  readonly path: string;
  readonly uri: string;
  readonly size: number;
  readonly digest: string;
}

function listedFiles(entry: Skill, root: string): ListedFile[] | { readonly refused: string } {
  if (entry.resources === "dynamic") {
    return { refused: "its files are generated (resources: dynamic), so no digest can be checked" };
  }
  const listed: ListedFile[] = [];
  for (const resource of entry.resources) {
    const below = pathBelow(root, resource.uri);
    if ("problem" in below) return { refused: below.problem };
    listed.push({ path: below.path, uri: resource.uri, size: resource.size, digest: resource.digest });
  }
  const total = listed.reduce((sum, file) => sum + file.size, 0);
  if (listed.length > SKILL_LIMITS.files || total > SKILL_LIMITS.bytes) {
    return {
      refused: `${listed.length} files, ${total} bytes: over the extension's limits (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes)`,
    };
  }
  const clash = clashingPaths(listed.map((file) => file.path));
  return clash ? { refused: `${clash[0]} and ${clash[1]} ${CLASH}` } : listed;
}

/**
 * Reads every file of `entry` through the SDK's SkillsClient, which checks each one's size and digest
 * against the entry (and SKILL.md's frontmatter), then the pack files its text cites. A file the copy
 * installed holds with the size and digest the entry lists (`installed`, on an update) is taken from
 * there instead; not SKILL.md, whose frontmatter only the SDK's read checks against the entry. Pack files
 * have no digest in the extension: each is read. Refused, with the reason, when anything cannot be
 * written as the entry describes: a dynamic skill, a path that is not a plain name below the skill, more
 * than the extension's limits, a file that fails its check. Rejects with {@link PackFilesOverRoom} as
 * soon as the pack files it keeps come to more than `packRoom` bytes: they are held with its files until
 * it is written.
 */
export async function downloadSkill(
  entry: Skill,
  context: DownloadContext,
  installed?: InstalledFileReader,
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
        file.path === SKILL_DOCUMENT ? undefined : await installed?.(file.path, file.size, file.digest);
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
          throw error instanceof SkillVerificationError
            ? error
            : new Error(`reading ${file.uri} failed`, { cause: error });
        });
      files.set(file.path, read.bytes);
    });
  } catch (error) {
    return { refused: readFailure(error) };
  }
  const ordered = new Map(listed.map((file) => [file.path, files.get(file.path) ?? new Uint8Array()]));
  try {
    const read = (uri: string, room: number) => readPackFile(uri, room, context);
    const skill = await withPackFiles(entry, root, ordered, total, context.skillRoots, read, packRoom);
    return { skill, kept };
  } catch (error) {
    if (error instanceof PackFilesOverRoom) throw error;
    return { refused: describeError(error) };
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

/**
 * `files` plus the pack files their text cites, each placed where the citation finds it from the
 * skill's folder (`shared/tokens.md`). A cited file that cannot be placed there (a path that climbs out
 * of the folder, a path a skill file holds, over the size limit) is left out, and SKILL.md says so.
 * Throws {@link PackFilesOverRoom} as soon as the pack files placed come to more than `packRoom` bytes.
 */
async function withPackFiles(
  entry: Skill,
  root: string,
  files: Map<string, Uint8Array>,
  skillBytes: number,
  skillRoots: ReadonlySet<string>,
  readPack: PackFileReader,
  packRoom = Number.POSITIVE_INFINITY,
): Promise<DownloadedSkill> {
  const packFiles: Record<string, PackFileRecord> = {};
  const leftOut: string[] = [];
  const seen = new Set<string>();
  const queue = [...files].filter(([file]) => TEXT_FILE.test(file)).map(([, bytes]) => bytes);
  let bytes = skillBytes;
  // Bytes read for the skill, pack files left out included: no more is read past the skill's limit.
  let read = skillBytes;
  let lookups = 0;
  for (let text = queue.shift(); text !== undefined; text = queue.shift()) {
    const decoded = decodeText(text);
    if (decoded === undefined) continue;
    for (const cited of citedPaths(decoded, MAX_CITATIONS)) {
      if (seen.size >= MAX_CITATIONS) break;
      if (seen.has(cited) || files.has(cited)) continue;
      seen.add(cited);
      const candidates = candidateUris(root, cited).filter((uri) => !isInAnotherSkill(uri, root, skillRoots));
      if (read >= SKILL_LIMITS.bytes) {
        leftOut.push(
          `\`${cited}\`: not read: what this skill and the files it cites hold reached ${SKILL_LIMITS.bytes} bytes`,
        );
        continue;
      }
      // What the skill may still hold of pack files: its room, and its limit. The answer is given twice
      // that (base64 is 4/3 of the bytes; JSON writes a text's quotes and line breaks as two characters),
      // so no larger file is ever read whole, only asked for again with more room.
      const roomLeft = packRoom - (bytes - skillBytes);
      const limitLeft = SKILL_LIMITS.bytes - bytes;
      const answerRoom = 2 * Math.min(roomLeft, limitLeft) + ANSWER_ENVELOPE_BYTES;
      let found: { uri: string; bytes: Uint8Array } | undefined;
      for (const uri of candidates) {
        if (lookups >= MAX_PACK_LOOKUPS) break;
        lookups += 1;
        const pack = await readPack(uri, answerRoom);
        if ("over" in pack) {
          if (roomLeft < limitLeft) throw new PackFilesOverRoom();
          leftOut.push(
            `\`${cited}\` (${uri}): not read: its answer is over ${pack.over} bytes, twice what this skill may still hold (${Math.max(limitLeft, 0)} bytes of ${SKILL_LIMITS.bytes})`,
          );
          break;
        }
        if ("bytes" in pack) {
          found = { uri, bytes: pack.bytes };
          break;
        }
      }
      if (found === undefined) continue;
      read += found.bytes.length;
      const problem = placementProblem(cited, files, bytes + found.bytes.length);
      if (problem !== undefined) {
        leftOut.push(`\`${cited}\` (${found.uri}): ${problem}`);
        continue;
      }
      bytes += found.bytes.length;
      if (bytes - skillBytes > packRoom) throw new PackFilesOverRoom();
      files.set(cited, found.bytes);
      packFiles[cited] = { uri: found.uri, digest: digestOf(found.bytes) };
      if (TEXT_FILE.test(cited)) queue.push(found.bytes);
    }
  }
  const document = files.get(SKILL_DOCUMENT);
  if (leftOut.length > 0 && document !== undefined) {
    files.set(SKILL_DOCUMENT, Buffer.concat([document, Buffer.from(leftOutNote(entry, leftOut))]));
  }
  return { files, packFiles, leftOut };
}

/**
 * Where a path the skill cites may be on the server: from the skill's folder when it climbs out of it
 * (`../shared/x.md`), else from each folder above the skill, nearest first, as pack-level citations
 * (`shared/x.md` in `skill://design/forms/SKILL.md` is `skill://design/shared/x.md`).
 */
function candidateUris(root: string, cited: string): string[] {
  if (cited.startsWith("../")) return [new URL(cited, `${root}/`).href];
  const url = new URL(root);
  const prefix = `${url.protocol}//${url.host}`;
  const segments = url.pathname.split("/").filter((segment) => segment !== "");
  const candidates: string[] = [];
  for (let depth = segments.length - 1; depth >= 0; depth--) {
    const folder = [prefix, ...segments.slice(0, depth)].join("/");
    candidates.push(new URL(cited, `${folder}/`).href);
  }
  return candidates;
}

/** Whether a folder above `uri` is the root of a skill other than `root`: one lookup per folder. */
function isInAnotherSkill(uri: string, root: string, skillRoots: ReadonlySet<string>): boolean {
  for (let end = uri.lastIndexOf("/"); end > 0; end = uri.lastIndexOf("/", end - 1)) {
    const folder = uri.slice(0, end);
    if (folder !== root && skillRoots.has(folder)) return true;
  }
  return false;
}

/** Why a pack file cannot go to `cited` in the skill's folder, or undefined when it can. */
function placementProblem(
  cited: string,
  files: ReadonlyMap<string, Uint8Array>,
  bytes: number,
): string | undefined {
  if (cited.startsWith("../")) return "outside this skill's folder, where sync writes nothing";
  const problem = relativePathProblem(cited);
  if (problem !== undefined) return problem;
  if (clashingPaths([...files.keys(), cited]) !== undefined) return "a file of the skill is in the way";
  if (bytes > SKILL_LIMITS.bytes) return `the skill would be over ${SKILL_LIMITS.bytes} bytes`;
  return undefined;
}

/** The lines appended to SKILL.md when a file it cites was left out, so that an agent reading it knows. */
function leftOutNote(entry: Skill, leftOut: readonly string[]): string {
  const lines = leftOut.map((item) => `- ${item}`).join("\n");
  return `\n\n---\n\nInstalled by skills-mcp sync from ${entry.uri}. Files this skill cites that are not in this copy:\n\n${lines}\n`;
}

/**
 * A pack file at `uri`, its answer read no further than `room` bytes, read once while it stays in
 * `packReads`; a server error means it serves nothing there.
 */
export function readPackFile(uri: string, room: number, context: DownloadContext): Promise<PackLookup> {
  return context.packReads.read(uri, room, async () => {
    try {
      const result = await context.client.readResource({ uri });
      const content = result.contents.find((item) => new URL(item.uri).href === uri);
      if (content === undefined) return { missing: true };
      return "text" in content
        ? { bytes: Buffer.from(content.text, "utf8") }
        : { bytes: Buffer.from(content.blob, "base64") };
    } catch (error) {
      if (!(error instanceof ProtocolError))
        throw new CitedFileUnreadable(`reading ${uri}, a file it cites, failed`, { cause: error });
      return { missing: true };
    }
  });
}

/** Why reading a skill's files failed, in words: a failed check names the file and what did not match. */
function readFailure(error: unknown): string {
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

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** At most `size` pieces of work at once; the others wait their turn, first come first served. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.#waiting.shift();
      if (next === undefined) this.#free += 1;
      else next();
    }
  }
}

/** Runs `work` on every item, at most `limit` at a time; the first failure fails it all and starts no more. */
export async function forEachLimited<Item>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const item = items[next];
      next += 1;
      try {
        if (item !== undefined) await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Runs `work` on every item, at most `limit` at a time, started in the items' order, and hands each
 * outcome to `take` in that order too, whichever finished first: what `take` says comes out the same
 * however the work runs at once. Once `take` answers false, no more work starts; the work started is
 * still waited for, so that none outlives the call.
 */
export async function forEachInOrder<Item, Outcome>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<Outcome>,
  take: (outcome: Outcome, item: Item, index: number) => Promise<boolean>,
): Promise<void> {
  const runs = items.map((item) => ({ item, outcome: settleable<Outcome>() }));
  let stopped = false;
  const running = forEachLimited(runs, limit, async ({ item, outcome }) => {
    if (stopped) return;
    await work(item).then(outcome.resolve, outcome.reject);
  });
  try {
    for (const [index, { item, outcome }] of runs.entries()) {
      if (!(await take(await outcome.promise, item, index))) break;
    }
  } finally {
    stopped = true;
    await running;
  }
}

function settleable<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
} {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  // A failure after `take` stopped is waited for but read by no one: not an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
