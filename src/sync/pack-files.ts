/**
 * The pack files a skill cites: found from its text, placed in its folder where the citation finds them,
 * or left out with a note in its SKILL.md.
 */

import { SKILL_LIMITS, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { digestOf, SKILL_DOCUMENT } from "../catalog/index.js";
import { decodeUtf8 } from "../shared/index.js";
import { citedPaths } from "./citations.js";
import type { PackFileRecord } from "./lock.js";
import { clashingPaths, relativePathProblem } from "./paths.js";
import { otherFileAnswered } from "./read-answers.js";
import { ANSWER_ENVELOPE_BYTES, type PackLookup } from "./reads.js";

/** A skill read from the server and checked, ready to be written: every file by its path in the skill's folder. */
export interface DownloadedSkill {
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly packFiles: Readonly<Record<string, PackFileRecord>>;
  /** What the skill cites that was not copied, each in words; the installed SKILL.md says so too. */
  readonly leftOut: readonly string[];
}

/**
 * How a pack file is read by its URI, its answer read no further than `room` bytes: from the server, or
 * as a run foresees it.
 */
type PackFileReader = (uri: string, room: number) => Promise<PackLookup>;

/**
 * The pack files a skill keeps came to more than the room its download was given for them: it stopped,
 * and may be fetched again with more room.
 */
export class PackFilesOverRoom extends Error {
  override name = "PackFilesOverRoom";
}

/** Distinct paths of a skill's text looked up as pack files, and reads spent on them, at most. */
export const MAX_CITATIONS = 32;
const MAX_PACK_LOOKUPS = 64;
export const TEXT_FILE = /\.(?:md|markdown|txt)$/i;

/**
 * `files` plus the pack files their text cites, each placed where the citation finds it from the
 * skill's folder (`shared/tokens.md`). A cited file that cannot be placed there (a path that climbs out
 * of the folder, a path a skill file holds, over the size limit) is left out, and SKILL.md says so.
 * Throws {@link PackFilesOverRoom} as soon as the pack files placed come to more than `packRoom` bytes.
 */
export async function withPackFiles(
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
    const decoded = decodeUtf8(text);
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
        if ("instead" in pack) {
          leftOut.push(`\`${cited}\`: ${otherFileAnswered(uri, pack.instead)}: nothing of it was written`);
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
  const clash = clashingPaths([...files.keys(), cited]);
  if (clash !== undefined) {
    const other = clash[0] === cited ? clash[1] : clash[0];
    return `a file of the skill is in the way, \`${other}\`: one name on a case-insensitive system, or a file where a folder must be`;
  }
  if (bytes > SKILL_LIMITS.bytes) return `the skill would be over ${SKILL_LIMITS.bytes} bytes`;
  return undefined;
}

/** The lines appended to SKILL.md when a file it cites was left out, so that an agent reading it knows. */
function leftOutNote(entry: Skill, leftOut: readonly string[]): string {
  const lines = leftOut.map((item) => `- ${item}`).join("\n");
  return `\n\n---\n\nInstalled by skills-mcp sync from ${entry.uri}. Files this skill cites that are not in this copy:\n\n${lines}\n`;
}
