import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  codePoint,
  describeArgsError,
  givenTwice,
  noKey,
  notOneOf,
  notWholeNumber,
  quoted,
  unreadableFile,
  visible,
  wholeNumberIn,
} from "../shared/index.js";
import type { SyncCounts } from "./apply.js";
import { CLIENT_FOLDERS, clientFolder, isClientName } from "./clients.js";
import type { ServerAddress } from "./connection.js";
import { LOCK_FILE, LockError } from "./lock.js";
import { SyncError, type SyncOptions } from "./options.js";
import type { Step } from "./plan.js";
import { ADOPTED, isOutOfDate, lockedRefusedPaths, NOT_INSTALLED_THERE } from "./plan.js";
import { type ProgressStream, progressOn } from "./progress.js";
import { syncSkills } from "./sync.js";

const CLIENT_LIST = Object.entries(CLIENT_FOLDERS)
  .map(([name, folders]) => `${name} (~/${folders.personal}, or ${folders.project})`)
  .join(",\n                         ");

/**
 * Headers the MCP transport and fetch set for each request (the body's type and length, what it accepts,
 * the protocol era and method, the session): one given with --header was replaced without a word, or failed
 * every request (`Content-Length`: "invalid content-length header"). The help names them as written here.
 */
const TRANSPORT_HEADER_NAMES = [
  "Accept",
  "Connection",
  "Content-Length",
  "Content-Type",
  "Last-Event-ID",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Session-Id",
  "Transfer-Encoding",
] as const;
/** TRANSPORT_HEADER_NAMES lowercase, as a given name is compared. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set(
  TRANSPORT_HEADER_NAMES.map((name) => name.toLowerCase()),
);

/** The longest `--wait`, a day: more is a typo of a few digits. */
const LONGEST_WAIT_SECONDS = 86_400;

const SYNC_USAGE = `Usage: skills-mcp sync <server URL> (--to <folder> | --client <name> [--project]) [options]

Installs the skills a skills-mcp server serves into a folder that coding agents load skills from, one
folder per skill, every file checked against the digest the server lists and audited first. Run it again
to update what changed, add what is new and remove what it installed that the server no longer serves.
It records what it installed in ${LOCK_FILE} there and never touches a folder it did not install;
one that holds exactly the server's copy (its lock file lost, or copied by hand) it adopts: records it
as installed, its files as they are (the plan says "adopt <name>: …").

Where to install:
  --to FOLDER            a skills folder (a leading ~ is the home folder, also where the shell leaves it)
  --client NAME          the personal skills folder of a client, or with --project the repository's:
                         ${CLIENT_LIST}
  --project              with --client: the folder in the current directory (the repository's root)

Scope, as a client would ask for it:
  --pack SELECTOR        a pack, group or pack/group, sent as X-Skill-Pack; repeat for several
  --header "NAME: VALUE" a header sent with every request; repeat for several (not one the MCP connection
                         sets itself: ${TRANSPORT_HEADER_NAMES.slice(0, 5).join(", ")},
                         ${TRANSPORT_HEADER_NAMES.slice(5).join(", ")})
  --api-key-file FILE    a file holding the server's API key, sent as Authorization: Bearer

What to do:
  --dry-run              print what a sync would do; change nothing
  --check                change nothing; exit 1 when the folder is out of date (for a login script or CI):
                         when a sync would change it (its lock file alone included), or a skill the lock
                         records with a file this sync no longer writes waits for its folder to be
                         deleted; not for another skill it would skip again
  --allow-unsafe         install skills with a high finding of the audit too (hidden Unicode, bidi controls)
  --wait SECONDS         how long to wait for another sync installing into the folder, then fail
                         (default 60; 0 fails at once; at most ${LONGEST_WAIT_SECONDS}, a day)
  -h, --help             show this help

Progress and a summary go to stderr; the plan of --dry-run and --check to stdout.
Exit status: 0 done, up to date, or a --dry-run's plan printed (skips included); 1 a skill was skipped (the
lines above say why), or with --check the folder is out of date; 2 the command line is wrong, or the server
or the folder cannot be synced.`;

/** What the command line runs with: the process's, or a test's. */
export interface SyncIo {
  readonly stdout: ProgressStream;
  readonly stderr: ProgressStream;
  readonly cwd: string;
  readonly home: string;
}

function processIo(): SyncIo {
  // A reader gone (`sync … | head`, a terminal closed under a job that outlives its shell) fails the next
  // write (EPIPE, EIO) with an error event that, unhandled, ended the run as SIGKILL would: its lock and
  // staged skills left, nothing installed. The run goes on unheard instead (SIGHUP, which a terminal
  // closed sends its jobs, stops it cleanly).
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), home: homedir() };
}

/**
 * The command cannot run as given, for what lies outside the command line (HOME, the API key's file): one
 * line says what; the usage would say nothing about it.
 */
class CommandLineError extends Error {
  override name = "CommandLineError";
}

/** The command line is wrong: one line says what, then the usage. */
class UsageError extends CommandLineError {
  override name = "UsageError";
}

/** `skills-mcp sync …`: runs the sync and returns the exit status. */
export async function runSyncCli(argv: readonly string[], io: SyncIo = processIo()): Promise<number> {
  let options: SyncOptions | "help";
  try {
    options = await parseCommandLine(argv, io);
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    const usage = error instanceof UsageError ? `\n${SYNC_USAGE}\n` : "";
    // One line, as every other: a path given (--to, --api-key-file) may hold a line break or an escape.
    io.stderr.write(`skills-mcp sync: ${visible(error.message)}\n${usage}`);
    return 2;
  }
  if (options === "help") {
    io.stdout.write(`${SYNC_USAGE}\n`);
    return 0;
  }
  try {
    const { steps, counts, lockChange, ownsNone } = await syncSkills(options);
    if (ownsNone !== undefined) sayOwnsNone(options, ownsNone, steps, io);
    return report(options, steps, counts, lockChange, io);
  } catch (error) {
    if (!(error instanceof SyncError || error instanceof LockError)) throw error;
    // The message may quote the server (its error, a URI): shown escaped, on one line.
    io.stderr.write(`skills-mcp sync: ${visible(error.message)}\n`);
    return 2;
  }
}

/**
 * A check or a dry run of a folder whose lock file is lost (or never committed with --project): every
 * skill sync had installed is skipped as not its own, which is no work a sync would do, so a check says
 * "up to date" (once a sync has written a lock recording none) though none will be updated again. Said
 * plainly, with the way back.
 */
function sayOwnsNone(
  options: SyncOptions,
  ownsNone: "missing" | "empty",
  steps: readonly Step[],
  io: SyncIo,
): void {
  const notOurs = steps.filter(
    (step) => step.kind === "skip" && step.reason.startsWith(NOT_INSTALLED_THERE),
  ).length;
  if (notOurs === 0) return;
  const why =
    ownsNone === "missing"
      ? `${options.folder} has no lock file (${LOCK_FILE})`
      : `the lock file of ${options.folder} (${LOCK_FILE}) records no skill from ${options.server.url.href}`;
  io.stderr.write(
    `skills-mcp sync: ${visible(why)}: sync owns none of the ${notOurs} skipped as not installed by sync, and will ` +
      `never update them; if sync installed them, its lock file was lost: see "A lost lock file" in docs/sync.md ` +
      `(put it back, or move those folders away and sync again)\n`,
  );
}

function report(
  options: SyncOptions,
  steps: readonly Step[],
  counts: SyncCounts,
  lockChange: string | undefined,
  io: SyncIo,
): number {
  // One line, as every other: the folder given may hold a line break or an escape.
  const where = `in ${visible(options.folder)}`;
  // Named only when there is one, so that the summary of every other run reads as it always did.
  const adopted = (done: string) => (counts.adopted === 0 ? "" : `, ${counts.adopted} ${done}`);
  if (options.mode === "sync") {
    io.stderr.write(
      `skills-mcp sync: ${counts.added} added, ${counts.updated} updated, ${counts.removed} removed, ` +
        `${counts.skipped} skipped, ${counts.unchanged} unchanged${adopted("adopted")} ${where}\n`,
    );
    return counts.skipped > 0 ? 1 : 0;
  }
  for (const step of steps) {
    if (step.kind === "keep") continue;
    const line =
      step.kind === "skip"
        ? `skip ${step.name}: ${step.reason}`
        : step.kind === "adopt"
          ? `adopt ${step.name}: ${ADOPTED}`
          : `${step.kind} ${step.name}`;
    io.stdout.write(`${visible(line)}\n`);
  }
  // A lock committed with the skills (--project) would change: not up to date.
  if (lockChange !== undefined) io.stdout.write(`${visible(`rewrite ${LOCK_FILE}: ${lockChange}`)}\n`);
  // Named apart, so that a log tells a skill the audit refuses, which a check passes, from one recorded with
  // a file this sync refuses, which fails it, and from anything else skipped.
  const refused = steps.filter((step) => step.kind === "skip" && step.refused !== undefined).length;
  const lockedRefused = lockedRefusedPaths(steps);
  const skipsNamed = [
    ...(refused === 0 ? [] : [`${refused} refused by the audit, unchanged`]),
    ...(lockedRefused === 0 ? [] : [`${lockedRefused} recorded with a file this sync no longer writes`]),
  ];
  const plan =
    `${counts.added} to add, ${counts.updated} to update, ${counts.removed} to remove, ` +
    `${counts.skipped} to skip${skipsNamed.length === 0 ? "" : ` (${skipsNamed.join("; ")})`}, ` +
    `${counts.unchanged} unchanged${adopted("to adopt")}${lockChange === undefined ? "" : `, the lock file to rewrite`} ${where}`;
  if (options.mode === "dry-run") {
    io.stderr.write(`skills-mcp sync: dry run, nothing changed: ${plan}\n`);
    return 0;
  }
  // A skill the lock records with a file this sync refuses is skipped by every sync until the user deletes
  // its folder: never in step with the server, so out of date, as a skill to update is.
  const outOfDate = isOutOfDate(steps) || lockChange !== undefined || lockedRefused > 0;
  io.stderr.write(`skills-mcp sync: ${outOfDate ? "out of date" : "up to date"}: ${plan}\n`);
  return outOfDate ? 1 : 0;
}

async function parseCommandLine(argv: readonly string[], io: SyncIo): Promise<SyncOptions | "help"> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(describeArgsError(error, SYNC_OPTIONS, { client: Object.keys(CLIENT_FOLDERS) }));
  }
  const { values, positionals, tokens } = parsed;
  if (values.help) return "help";
  const twice = givenTwice(tokens, SYNC_OPTIONS);
  if (twice !== undefined) throw new UsageError(twice);
  const [url, ...extra] = positionals;
  if (url === undefined) throw new UsageError("give the server's MCP URL (https://skills.example.com/mcp)");
  if (extra.length > 0)
    throw new UsageError(`one server URL only; also given: ${extra.map((word) => quoted(word)).join(", ")}`);
  if (values["dry-run"] && values.check) throw new UsageError("--dry-run and --check: choose one");
  const headers = parseHeaders(values.header ?? []);
  const packs = (values.pack ?? [])
    .flatMap((pack) => pack.split(","))
    .map((pack) => pack.trim())
    .filter((pack) => pack !== "");
  // A blank --pack (an unset variable in a script) would otherwise sync every pack the server serves.
  if (values.pack !== undefined && packs.length === 0) {
    throw new UsageError(
      "--pack needs a selector (a pack, group or pack/group); leave it out to sync every pack",
    );
  }
  if (packs.length > 0) {
    if (hasHeader(headers, "x-skill-pack")) throw new UsageError("--pack and --header X-Skill-Pack: use one");
    headers["X-Skill-Pack"] = packs.join(",");
  }
  const apiKeyFile = values["api-key-file"];
  if (apiKeyFile !== undefined && hasHeader(headers, "authorization")) {
    throw new UsageError("--api-key-file and --header Authorization: use one");
  }
  const server: ServerAddress = {
    url: serverUrl(url),
    headers,
    ...(apiKeyFile === undefined ? {} : { apiKey: await readApiKey(path.resolve(io.cwd, apiKeyFile)) }),
  };
  // The lock records the selectors (from --pack or the header, not secrets) and only the names of the rest.
  const selectors =
    Object.entries(headers).find(([name]) => name.toLowerCase() === "x-skill-pack")?.[1] ?? "";
  return {
    server,
    scope: {
      packs: selectors
        .split(",")
        .map((selector) => selector.trim())
        .filter((selector) => selector !== ""),
      headers: Object.keys(headers)
        .map((name) => name.toLowerCase())
        .filter((name) => name !== "x-skill-pack")
        .sort(),
    },
    folder: targetFolder(values, io),
    mode: values["dry-run"] ? "dry-run" : values.check ? "check" : "sync",
    allowUnsafe: values["allow-unsafe"] === true,
    ...(values.wait === undefined ? {} : { lockWaitMs: waitMs(values.wait) }),
    era: "auto",
    progress: progressOn(io.stderr),
  };
}

const SYNC_OPTIONS = {
  to: { type: "string" },
  client: { type: "string" },
  project: { type: "boolean" },
  pack: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  "api-key-file": { type: "string" },
  "dry-run": { type: "boolean" },
  check: { type: "boolean" },
  "allow-unsafe": { type: "boolean" },
  wait: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: SYNC_OPTIONS,
  });
}

function targetFolder(values: { to?: string; client?: string; project?: boolean }, io: SyncIo): string {
  if (values.to !== undefined && values.client !== undefined)
    throw new UsageError("--to and --client: choose one");
  if (values.to !== undefined) {
    if (values.project) throw new UsageError("--project goes with --client, not --to");
    if (values.to.trim() === "") throw new UsageError("--to needs a folder");
    return path.resolve(io.cwd, homeExpanded(values.to, io));
  }
  if (values.client === undefined)
    throw new UsageError("say where to install: --to <folder> or --client <name>");
  if (!isClientName(values.client)) {
    throw new UsageError(notOneOf("--client", values.client, Object.keys(CLIENT_FOLDERS)));
  }
  // An empty or relative HOME (a cron job, a service with no user) would put the personal folder below the
  // current directory, as --project does, without a word.
  if (values.project !== true && !path.isAbsolute(io.home)) {
    throw new CommandLineError(
      `--client ${values.client} installs into the home folder, and HOME (${quoted(io.home)}) is not an absolute path: set HOME, add --project, or give --to <folder>`,
    );
  }
  return clientFolder(values.client, values.project === true, io);
}

/**
 * `--to` with a leading `~` (alone, or before a slash, or a backslash on Windows) read as the home folder.
 * A shell expands it only unquoted and at the start of a word: `--to "~/skills"`, `--to=~/skills`, a
 * YAML list of arguments, or PowerShell, which leaves it to the program, made a folder named `~` below
 * the current directory. `./~` still names that one.
 */
function homeExpanded(to: string, io: SyncIo): string {
  const separators = process.platform === "win32" ? ["/", "\\"] : ["/"];
  if (to !== "~" && !separators.some((separator) => to.startsWith(`~${separator}`))) return to;
  if (!path.isAbsolute(io.home)) {
    throw new CommandLineError(
      `--to ${quoted(to)} starts with ~, the home folder, and HOME (${quoted(io.home)}) is not an absolute path: set HOME, or give the folder's full path`,
    );
  }
  return path.join(io.home, to.slice(1));
}

/** `--wait`'s seconds, in milliseconds: digits only, as every command reads a whole number, at most a day. */
function waitMs(text: string): number {
  const seconds = wholeNumberIn(text, 0);
  if (seconds === undefined) throw new UsageError(notWholeNumber("--wait", text, 0));
  if (seconds > LONGEST_WAIT_SECONDS) {
    throw new UsageError(
      `--wait ${quoted(text)} is more than a day: give at most ${LONGEST_WAIT_SECONDS} seconds`,
    );
  }
  return seconds * 1000;
}

function serverUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${quoted(text)} is not a URL; give the server's MCP URL (https://skills.example.com/mcp)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${quoted(text)} is not an http or https URL`);
  }
  // fetch refuses such a URL, and its error, which every line of a run quotes, and the lock file would both
  // have held the password: said without it, with the options that send a key.
  if (url.username !== "" || url.password !== "") {
    url.username = "";
    url.password = "";
    throw new UsageError(
      `the server URL holds a user name or password (${quoted(url.href)} without them), which sync does not send: give the key with --api-key-file FILE, or --header "Authorization: …"`,
    );
  }
  return url;
}

/** An HTTP header name: a token (RFC 9110). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaders(given: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of given) {
    const colon = header.indexOf(":");
    const name = header.slice(0, Math.max(colon, 0)).trim();
    const value = header.slice(colon + 1).trim();
    if (colon === -1 || name === "") {
      throw new UsageError(
        `--header ${quoted(header)} is not NAME: VALUE (a header name, a colon, its value)`,
      );
    }
    // "is not NAME: VALUE" was said of `X-Ä: ü` too, which is, but for the character its name cannot hold.
    if (!HEADER_NAME.test(name)) {
      const [bad = ""] = [...name].filter((character) => !HEADER_NAME.test(character));
      throw new UsageError(
        `--header ${quoted(header)}: a header name cannot hold ${quoted(bad)} (only ASCII letters, digits and !#$%&'*+-.^_\`|~)`,
      );
    }
    if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value holds a line break or NUL`);
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
      throw new UsageError(
        `--header ${name}: sync's MCP connection sets this header itself for each request, so the value given would not be sent (or would break the request); leave it out`,
      );
    }
    if (hasHeader(headers, name)) throw new UsageError(`--header ${name} is given twice`);
    headers[name] = value;
  }
  return headers;
}

function hasHeader(headers: Readonly<Record<string, string>>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());
}

/** The key in `file`: its first line that is neither blank nor a `#` comment. */
async function readApiKey(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CommandLineError(unreadableFile(`--api-key-file ${file}`, error));
  }
  const key = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== "" && !line.startsWith("#"));
  if (key === undefined) {
    throw new CommandLineError(noKey(`--api-key-file ${file}`, "put the key on a line of its own"));
  }
  const unsendable = unsendableInKey(key);
  if (unsendable !== undefined) {
    throw new CommandLineError(
      `--api-key-file ${file}: its key holds ${unsendable}, which a bearer token cannot hold (visible ASCII only, no spaces); is it the right file?`,
    );
  }
  return key;
}

/**
 * The first character of `key` that no bearer token holds, by code point and place (the key itself is
 * never shown): fetch failed every request on one past Latin-1 ("Cannot convert argument to a ByteString
 * because the character at index 7…", counted in the header's value), and sent others a server refuses.
 */
function unsendableInKey(key: string): string | undefined {
  const characters = [...key];
  const at = characters.findIndex((character) => !/^[\x21-\x7e]$/.test(character));
  const character = characters[at];
  if (character === undefined) return undefined;
  return `${codePoint(character.codePointAt(0) ?? 0)} at character ${at + 1}`;
}
