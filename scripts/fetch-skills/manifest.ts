import { randomBytes } from "node:crypto";
import { open, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { parse, TomlError } from "smol-toml";
import {
  describeCharacter,
  firstUnseen,
  MAX_PACK_DESCRIPTION,
  quoted,
  readsAsDotGit,
  unreadableFile,
} from "../../src/shared/index.js";
import { describeWriteError, FetcherError, ManifestError, withoutCredentials } from "./errors.js";
import { locateSources, type ManifestLayout } from "./layout.js";

/** One `[[source]]` of skills.toml, validated: it becomes the pack `<out>/<name>/`. */
export interface SkillSource {
  readonly name: string;
  /** Any URL git can fetch from, file:// included. */
  readonly repo: string;
  /** The pinned commit: 40 lowercase hex digits. */
  readonly ref: string;
  /** The repository folder holding the skill folders, POSIX and normalized ("." for the root). */
  readonly path: string;
  /** Repository folders outside `path` that the skills cite, copied to `<out>/<name>/<extra>`. */
  readonly extras: readonly string[];
  /** What `--update` tracks; undefined tracks the remote's HEAD. */
  readonly branch: string | undefined;
  /** What the pack's skills are for, in the operator's words: models see it before their first call. */
  readonly description?: string;
}

export interface Manifest {
  /** The file as the user named it, for messages. */
  readonly label: string;
  readonly text: string;
  readonly sources: readonly SkillSource[];
  /** Where each key sits in `text`; undefined when the file is laid out in a way the scanner cannot follow. */
  readonly layout: ManifestLayout | undefined;
}

const SOURCE_KEYS = ["name", "repo", "ref", "path", "extras", "branch", "description"] as const;
const COMMIT = /^[0-9a-f]{40}$/;
/** The Agent Skills naming rule, as the server applies it to pack folders (kept here so this script stands alone). */
const PACK_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_PACK_NAME = 64;

/**
 * The most bytes skills.toml may hold: a source takes a few hundred. Read whole, a file of gigabytes was
 * held and parsed before any check, and a device that never ends (`--manifest /dev/zero`) was read until
 * Node gave up at 2 GiB.
 */
const MAX_MANIFEST_BYTES = 1024 * 1024;

export async function readManifest(file: string, label: string): Promise<Manifest> {
  let bytes: Buffer;
  try {
    bytes = await readAtMost(file, MAX_MANIFEST_BYTES + 1);
  } catch (error) {
    throw new ManifestError([unreadableFile(label, error)]);
  }
  if (bytes.length > MAX_MANIFEST_BYTES) {
    throw new ManifestError([
      `${label}: holds more than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB, the most a skills.toml may: ` +
        "it lists sources, a few hundred bytes each; name the file meant",
    ]);
  }
  return parseManifest(bytes.toString("utf8"), label);
}

/** The first `most` bytes of `file` (all of it when shorter), read as they come: a device has no size. */
async function readAtMost(file: string, most: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(most);
    let filled = 0;
    while (filled < most) {
      const { bytesRead } = await handle.read(buffer, filled, most - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** A new manifest written in full beside the old one, which it replaces when committed. */
interface StagedManifest {
  /** Renames the new manifest over the old one. */
  commit(): Promise<void>;
  /** Removes the new manifest, leaving the old one as it was. */
  discard(): Promise<void>;
}

/**
 * Writes `text`, the manifest `file` is to become, beside it: a run killed, or a disk full, mid-write
 * leaves the old file whole rather than truncated, and a failure comes before anything else is replaced.
 * A symlinked manifest stays a symlink, its target replaced; the file keeps its mode.
 */
export async function stageManifest(file: string, text: string, label: string): Promise<StagedManifest> {
  let temp: string | undefined;
  try {
    const target = await realpath(file);
    const mode = (await stat(target)).mode & 0o7777;
    temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temp, "wx", mode);
    try {
      // Set again: the umask may have taken bits away from what open was given.
      await handle.chmod(mode);
      await handle.writeFile(text);
      // On disk before the rename, so a power loss cannot swap in an empty file.
      await handle.sync();
    } finally {
      await handle.close();
    }
    const staged = temp;
    return { commit: () => rename(staged, target), discard: () => rm(staged, { force: true }) };
  } catch (error) {
    if (temp !== undefined) await rm(temp, { force: true });
    throw new FetcherError(`${label}: cannot be rewritten: ${describeWriteError(error)}`);
  }
}

/** Parses and validates the whole file, or throws a ManifestError listing every problem found. */
export function parseManifest(text: string, label: string): Manifest {
  let data: Record<string, unknown>;
  try {
    data = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ManifestError([
        `${label}:${error.line}:${error.column}: not valid TOML: ${tomlReason(error, text)}`,
      ]);
    }
    throw error;
  }
  const layout = locateSources(text);
  const problems: string[] = [];
  const at = (line: number | undefined) => (line === undefined ? label : `${label}:${line}`);

  for (const key of Object.keys(data)) {
    if (key !== "source") {
      problems.push(
        `${at(layout?.rootKeys.get(key))}: unknown key ${quoted(key)} (valid: [[source]] tables)`,
      );
    }
  }
  const tables = data.source;
  if (tables === undefined) problems.push(`${label}: no [[source]] table: nothing to fetch`);
  else if (!isTableList(tables)) {
    problems.push(`${at(layout?.rootKeys.get("source"))}: "source" must be written as [[source]] tables`);
  }
  // Without tables there is nothing more to check; with them, their problems are reported too.
  if (!isTableList(tables)) throw new ManifestError(problems);

  // Line numbers are trusted only when the scanner saw exactly the tables smol-toml did.
  const located = layout?.sources.length === tables.length ? layout : undefined;
  const sources: SkillSource[] = [];
  const lineOfName = new Map<string, number | undefined>();
  tables.forEach((table: Record<string, unknown>, index) => {
    const where = located?.sources[index];
    const lineOf = (key: string) => where?.keyLines.get(key) ?? where?.line;
    const name = typeof table.name === "string" ? table.name : undefined;
    const report = (key: string, problem: string) => {
      const who = name === undefined ? `source #${index + 1}` : `source ${quoted(name)}`;
      problems.push(`${at(lineOf(key))}: ${who}: ${problem}`);
    };
    const source = validateSource(table, report);
    // Checked whatever else is wrong with either source: every problem is reported at once.
    if (name !== undefined && lineOfName.has(name)) {
      const earlier = lineOfName.get(name);
      report(
        "name",
        `name ${quoted(name)} is already used by ${earlier ? `the source on line ${earlier}` : "another source"}`,
      );
      return;
    }
    if (name !== undefined) lineOfName.set(name, where?.line);
    if (source !== undefined) sources.push(source);
  });
  if (problems.length > 0) throw new ManifestError(problems);
  return { label, text, sources, layout: located };
}

/**
 * smol-toml's reason, save one: a string left open meets the end of its line, which smol-toml reports as
 * a control character in the string.
 */
function tomlReason(error: TomlError, text: string): string {
  const reason = error.message.split("\n", 1)[0]?.replace(/^Invalid TOML document: /, "") ?? "";
  const line = text.split("\n", error.line)[error.line - 1] ?? "";
  const atLineEnd = error.column > line.replace(/\r$/, "").length;
  return reason === "control characters are not allowed in strings" && atLineEnd
    ? "a string is not closed on its line (its closing quote is missing)"
    : reason;
}

function isTableList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.every(isTable);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

type Report = (key: string, problem: string) => void;

function validateSource(table: Record<string, unknown>, report: Report): SkillSource | undefined {
  let valid = true;
  const fail: Report = (key, problem) => {
    valid = false;
    report(key, problem);
  };
  for (const key of Object.keys(table)) {
    if (!(SOURCE_KEYS as readonly string[]).includes(key)) {
      fail(key, `unknown key ${quoted(key)} (valid keys: ${SOURCE_KEYS.join(", ")})`);
    }
  }
  const hidden = keysHidingText(table, fail);
  const name = requiredText(table, "name", fail);
  if (name !== undefined && !hidden.has("name") && (name.length > MAX_PACK_NAME || !PACK_NAME.test(name))) {
    fail("name", `name ${quoted(name)} must be lowercase letters, digits and single hyphens (at most 64)`);
  }
  const repo = requiredText(table, "repo", fail);
  const repoProblem = repo === undefined || hidden.has("repo") ? undefined : problemOfRepo(repo);
  if (repo !== undefined && repoProblem !== undefined) fail("repo", `repo ${quoted(repo)} ${repoProblem}`);
  // Pinning a new source starts from a branch or tag name: say how to turn it into the commit.
  const lookUp = (ref: string) =>
    /^[0-9a-f]+$/i.test(ref)
      ? `git rev-parse ${ref} in a clone of the repository prints them`
      : `git ls-remote ${withoutCredentials(repo ?? "<repo>")} ${ref} prints those of the commit it names now`;
  // A ref written unquoted (a number, a date) is as far from a commit id as a branch name.
  const ref = requiredText(table, "ref", fail, () => {
    const given = table.ref;
    const written =
      typeof given === "number" || typeof given === "bigint" ? String(given) : "<branch or tag>";
    return `: write the full commit id, its 40 lowercase hex digits, in quotes (${lookUp(written)})`;
  });
  if (ref !== undefined && !hidden.has("ref") && !COMMIT.test(ref)) {
    fail(
      "ref",
      `ref ${quoted(ref)} is not a full commit id: write its 40 lowercase hex digits (${lookUp(ref)})`,
    );
  }
  const folder = optionalText(table, "path", fail);
  const sourcePath = folder === undefined ? "." : checkFolder(folder, "path", fail);
  const extras = readExtras(table, sourcePath, fail);
  const branch = optionalText(table, "branch", fail);
  if (branch !== undefined && !hidden.has("branch") && !isBranchName(branch)) {
    fail("branch", `branch ${quoted(branch)} is not a valid branch name`);
  }
  const description = optionalText(table, "description", fail)?.replace(/\s+/g, " ").trim();
  if (description !== undefined && description.length > MAX_PACK_DESCRIPTION) {
    fail(
      "description",
      `description is ${description.length} characters; at most ${MAX_PACK_DESCRIPTION} (models read it on every turn)`,
    );
  }
  if (!valid || name === undefined || repo === undefined || ref === undefined || sourcePath === undefined) {
    return undefined;
  }
  return { name, repo, ref, path: sourcePath, extras, branch, ...(description ? { description } : {}) };
}

const REPO_FORMS =
  "https://host/owner/name.git, ssh://host/path, user@host:path, file:///absolute/path or /absolute/path";
const VALID_REPOS = `write ${REPO_FORMS}`;

/** What each key holds, said to a value holding a character no reader sees. */
const VALID_TEXT: Readonly<Record<(typeof SOURCE_KEYS)[number], string>> = {
  name: "lowercase letters, digits and single hyphens",
  repo: REPO_FORMS,
  ref: "the commit's 40 lowercase hex digits",
  path: "the folder's path in characters a reader sees",
  extras: "folder paths in characters a reader sees",
  branch: "the branch's name, of letters, digits and . / + @ # - _",
  description: "text a reader sees (a line break or tab reads as a space)",
};

/**
 * Reports each value (each item of a list) holding a character {@link firstUnseen} finds, and returns their
 * keys, whose own checks would only restate it. A pin is bumped in a one-line change to skills.toml that a
 * person reviews: a bidi control (U+202A-U+202E, U+2066-U+2069) shows that line in another order than git
 * reads it, and a zero-width, tag or other format character, a line separator or a soft hyphen hides part of
 * it. A description's line breaks and tabs are layout (a multi-line string holds them), read as spaces.
 */
function keysHidingText(table: Record<string, unknown>, fail: Report): Set<string> {
  const keys = new Set<string>();
  for (const key of SOURCE_KEYS) {
    const value = table[key];
    const texts = Array.isArray(value) ? value : [value];
    for (const text of texts) {
      if (typeof text !== "string") continue;
      const code = firstUnseen(text, key === "description" ? isLayoutWhitespace : undefined);
      if (code === undefined) continue;
      keys.add(key);
      fail(
        key,
        `${key === "extras" ? "extra" : key} ${quoted(text)} holds ${describeCharacter(code)}, a character ` +
          `that hides or reorders text, so a review would read the line other than the fetcher does: write ${VALID_TEXT[key]}`,
      );
    }
  }
  return keys;
}

/** Tab, line feed and carriage return: what a TOML multi-line string holds between its lines. */
function isLayoutWhitespace(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0d;
}

/** `hint` follows the problem when the value is not a non-empty string: what to write instead. */
function requiredText(
  table: Record<string, unknown>,
  key: string,
  fail: Report,
  hint?: () => string,
): string | undefined {
  if (table[key] === undefined) {
    fail(key, `${key} is missing`);
    return undefined;
  }
  return optionalText(table, key, fail, hint);
}

function optionalText(
  table: Record<string, unknown>,
  key: string,
  fail: Report,
  hint = () => "",
): string | undefined {
  const value = table[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    fail(key, `${key} must be a non-empty string${hint()}`);
    return undefined;
  }
  return value;
}

function readExtras(table: Record<string, unknown>, sourcePath: string | undefined, fail: Report): string[] {
  const value = table.extras;
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    fail("extras", 'extras must be a list of folder paths, like ["shared"]');
    return [];
  }
  const extras: string[] = [];
  for (const item of value) {
    const extra = checkFolder(item, "extras", fail);
    if (extra === undefined) continue;
    if (extra === ".") fail("extras", `extra ${quoted(item)} is the whole repository: set path instead`);
    else if (sourcePath !== undefined && overlaps(extra, sourcePath)) {
      fail("extras", `extra ${quoted(item)} overlaps path ${quoted(sourcePath)}: extras must lie outside it`);
    } else if (extras.some((earlier) => overlaps(extra, earlier))) {
      fail("extras", `extra ${quoted(item)} overlaps another extra`);
    } else extras.push(extra);
  }
  return extras;
}

/** A repository-relative folder, normalized; absolute paths, any `..` and `.git` are refused. */
function checkFolder(value: string, key: string, fail: Report): string | undefined {
  const what = key === "path" ? "path" : "extra";
  if (value.includes("\0") || value.includes("\\")) {
    fail(key, `${what} ${quoted(value)} must be a POSIX path (no backslash)`);
    return undefined;
  }
  if (path.posix.isAbsolute(value) || /^[A-Za-z]:/.test(value)) {
    fail(key, `${what} ${quoted(value)} must be relative to the repository root, not absolute`);
    return undefined;
  }
  if (value.split("/").includes("..")) {
    fail(key, `${what} ${quoted(value)} must not climb out with ".."`);
    return undefined;
  }
  // A folder named with such a space is not reachable as path or extra: its parent folder is (name that).
  const lookalike = lookalikeSpace(value);
  if (lookalike !== undefined) {
    fail(
      key,
      `${what} ${quoted(value)} holds ${lookalike}: write a plain space (U+0020), the only space a folder ` +
        "path may hold, or name the folder that holds this one",
    );
    return undefined;
  }
  const gitFolder = value.split("/").find(readsAsDotGit);
  if (gitFolder !== undefined) {
    fail(
      key,
      `${what} ${quoted(value)} must not point into .git: its folder ${quoted(gitFolder)} is one macOS or ` +
        'Windows reads as .git, like any folder named .git in any case, with dots, spaces or a ":" stream ' +
        'after it (".GIT", ".git.", ".git::$INDEX_ALLOCATION"), with a character macOS ignores inside it ' +
        "(\".g{U+200C}it\"), or git~1, Windows' short name for .git; name a folder of the repository's own " +
        'files, like "skills"',
    );
    return undefined;
  }
  const normalized = path.posix.normalize(value).replace(/\/+$/, "");
  return normalized === "" ? "." : normalized;
}

/** Whether one folder is the other or lies inside it; "." holds everything. */
function overlaps(a: string, b: string): boolean {
  return isWithin(a, b) || isWithin(b, a);
}

/**
 * Whether the repository path `entry` is the folder `folder` or lies inside it, both POSIX and normalized
 * as {@link SkillSource.path} is: "." is the root, which holds everything. (Not src/shared/inside-folder.ts's
 * `isInside`, which takes absolute paths of the system's separator, where "." is no root.)
 */
export function isWithin(folder: string, entry: string): boolean {
  return folder === "." || entry === folder || entry.startsWith(`${folder}/`);
}

/** What is wrong with `repo` as a source's repository, or undefined when git may fetch from it. */
function problemOfRepo(repo: string): string | undefined {
  if (repo.startsWith("-")) return 'must not start with "-"';
  // Other remote helpers (codecommit::, a scheme of their own) are git's to find or refuse, as it is
  // configured on the build machine; these two are never a repository to build from.
  const helper = /^(ext|fd)::/i.exec(repo);
  if (helper) {
    return (
      `names git's remote helper ${quoted(`${helper[1]}::`)}, which fetches from no repository (ext:: runs ` +
      `the command it is given, fd:: reads descriptors the fetcher does not hand it): ${VALID_REPOS}`
    );
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(repo)?.[1]?.toLowerCase();
  // Git blocks such a host itself, as ssh would read it as an option; said here with the rest.
  if (scheme !== undefined && /^[^:]*:\/\/(?:[^@/]*@)?-/.test(repo)) {
    return `names a host starting with "-", which ssh would read as an option: ${VALID_REPOS}`;
  }
  if (scheme === "file" && !repo.slice("file://".length).startsWith("/")) {
    return `is a file:// URL without an absolute path (git would read it from its own store): write file:///absolute/path`;
  }
  const local = scheme === "file" || repo.startsWith("/");
  if (local && repo.split("/").includes("..")) {
    return `must name the repository's folder without "..": write its absolute path, as realpath prints it`;
  }
  if (isRelativePath(repo)) {
    return `is neither a URL nor an absolute path (git fetches from its own store, where a relative path leads nowhere): ${VALID_REPOS}`;
  }
  return problemOfSpaces(repo, local);
}

/**
 * What is wrong with the spaces in `repo`: a space that is not U+0020 (a no-break space, an em space)
 * reads as one in a review and is another path or host to git; and a URL holds no space (curl refuses
 * one, and a space before `https://` makes the whole a `host:path`). A local path may hold spaces.
 */
function problemOfSpaces(repo: string, local: boolean): string | undefined {
  const lookalike = lookalikeSpace(repo);
  if (lookalike !== undefined) {
    return `holds ${lookalike}: write a plain space, in a local path only`;
  }
  if (!local && repo.includes(" ")) {
    return (
      "holds a space, which a URL may not (only a local path, /absolute/path or file:///absolute/path, may): " +
      "write it as %20 in an https:// or ssh:// URL (ssh://user@host/path for user@host:path), and nothing before the scheme"
    );
  }
  return undefined;
}

/**
 * The first space in `text` that is not U+0020 (a no-break space, an em space, an ideographic space), said
 * as what it is and why it is refused, or undefined when there is none: a one-line review reads it as " ",
 * and git as another character, so `skills\u00A0x` is read as `skills x` and fetched as another folder.
 */
function lookalikeSpace(text: string): string | undefined {
  const code = /[^\P{Zs} ]/u.exec(text)?.[0]?.codePointAt(0);
  return code === undefined
    ? undefined
    : `${describeCharacter(code)}, a space that reads as " " in a review but is another character to git`;
}

/**
 * Whether git would read `repo` as a path relative to where it runs: no scheme, not `host:path` (git's
 * scp-like form has a colon before any slash) and not absolute. `github.com/owner/name` is one.
 */
function isRelativePath(repo: string): boolean {
  return !repo.startsWith("/") && !/^[^/]*:/.test(repo);
}

/** A safe subset of git's branch names: nothing git could read as an option, a range or a pattern. */
function isBranchName(branch: string): boolean {
  return /^[\w./+@#-]+$/.test(branch) && !/^[-/]|\/$|\.lock$|\.\.|@\{|\/\//.test(branch);
}
