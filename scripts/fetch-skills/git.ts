import { spawn } from "node:child_process";
import { type SimpleGit, simpleGit } from "simple-git";

/** A hung network read should fail the build, not stall it forever. */
const GIT_SILENCE_LIMIT_MS = 10 * 60 * 1000;

/**
 * The build machine's git settings that reach git: simple-git strips every `GIT_*` variable unless named
 * here. These come from whoever runs the build (never from an upstream repository) and are what a build
 * behind a proxy or with private mirrors needs: a CA bundle, an SSH command, a config file with
 * credentials or `url.<base>.insteadOf` rewrites.
 */
const OPERATOR_GIT_ENVIRONMENT = [
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_SSH_COMMAND",
  "GIT_TERMINAL_PROMPT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
] as const;

/** Of those, what a git that reaches no remote (a checkout from the store) takes up: the config files. */
const OPERATOR_CONFIG_FILES = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] as const;

/** Git in `baseDir`; once `signal` aborts, its running command is interrupted and later ones fail at once. */
export function gitAt(baseDir: string | undefined, signal: AbortSignal | undefined): SimpleGit {
  return simpleGit(gitOptions(baseDir, signal));
}

/** Git in `baseDir`, as {@link gitAt} without a signal, with `input` on its standard input. */
export function gitFeeding(baseDir: string, input: string): SimpleGit {
  return simpleGit({ ...gitOptions(baseDir, undefined), input: () => input });
}

/**
 * Git in the store `store`, as {@link gitAt}, for a checkout into a work tree the fetcher made (`--work-tree`)
 * with its index at `index` (GIT_INDEX_FILE): git writes an index as `<index>.lock` and renames it into
 * place, so an index kept in the work tree is renamed within the work tree's file system, wherever the
 * store is (`read-tree --index-output` wrote beside the store and renamed across: on the image build's
 * cache mount, "unable to write new index file"). simple-git refuses both unless allowed (a folder named
 * to git could bring it a configuration): allowed here for this git alone. It reaches no remote, so of the
 * operator's settings it takes the config files only (given explicitly, simple-git would refuse
 * GIT_SSH_COMMAND).
 */
export function gitCheckingOut(store: string, index: string, signal: AbortSignal | undefined): SimpleGit {
  return simpleGit({
    ...gitOptions(store, signal),
    allowEnvironment: [...OPERATOR_CONFIG_FILES, "GIT_INDEX_FILE"],
    unsafe: { allowUnsafeConfigPaths: true },
  }).env({ ...guardedEnvironment(OPERATOR_CONFIG_FILES), GIT_INDEX_FILE: index });
}

function gitOptions(baseDir: string | undefined, signal: AbortSignal | undefined) {
  return {
    ...(baseDir === undefined ? {} : { baseDir }),
    ...(signal === undefined ? {} : { abort: signal }),
    timeout: { block: GIT_SILENCE_LIMIT_MS },
    allowEnvironment: OPERATOR_GIT_ENVIRONMENT,
  };
}

/**
 * Names outside `GIT_*` that simple-git's environment guard also strips (its list, as of simple-git 4): each
 * names a program git may run, or where it looks for its own. A test holds `gitEnvironment` to what
 * simple-git hands git, so a simple-git that guards more fails it rather than leaving the two apart.
 */
const GUARDED_NAMES = new Set(["editor", "visual", "pager", "prefix", "ssh_askpass"]);

/**
 * The environment `gitRecords` gives git, the one simple-git gives the fetcher's other git calls: the build
 * machine's, less every `GIT_*` variable but the operator's (as above) and the names above, matched in any
 * case as simple-git does (Windows reads `Git_Dir` as `GIT_DIR`); abbreviated options refused, as it sets.
 */
function gitEnvironment(): NodeJS.ProcessEnv {
  return { ...guardedEnvironment(OPERATOR_GIT_ENVIRONMENT), GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS: "true" };
}

/** The build machine's environment less every name simple-git guards but `allowed`. */
function guardedEnvironment(allowed: readonly string[]): NodeJS.ProcessEnv {
  const kept = new Set(allowed.map((name) => name.toLowerCase()));
  const guarded = (key: string) => {
    const name = key.toLowerCase().trim();
    return (name.startsWith("git_") || GUARDED_NAMES.has(name)) && !kept.has(name);
  };
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !guarded(key)));
}

/** How much of git's stderr an error quotes. */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Runs `git <args>` in `baseDir` and hands `take` each NUL-ended (or line-ended) record of its output as it comes, cut to
 * its first `keep` bytes: a listing is never held whole (`ls-tree -r` of a tree whose folders each hold
 * the next ten times lists millions of paths from a repository of kilobytes), nor read past `maxBytes`
 * (a chain of folders lists each file's path whole, in bytes quadratic in its depth). Once `take` returns
 * false, git is stopped and the rest is never read. Throws with git's message when git fails, and once git
 * has written nothing for `silenceMs` (10 minutes unless given), as simple-git's calls do: a git that stops
 * (a lazy fetch of an object from a hung remote, a store on a hung disk) stalled the fetch for good.
 */
export async function gitRecords(
  baseDir: string,
  args: readonly string[],
  signal: AbortSignal | undefined,
  limits: {
    readonly keep: number;
    readonly maxBytes: number;
    readonly silenceMs?: number;
    /** What ends a record: NUL unless given (`ls-remote` has no `-z`, and a ref name holds no line break). */
    readonly separator?: "\0" | "\n";
  },
  take: (record: string) => boolean,
): Promise<void> {
  const { keep, maxBytes, silenceMs = GIT_SILENCE_LIMIT_MS, separator = "\0" } = limits;
  const recordEnd = separator.charCodeAt(0);
  const child = spawn("git", args, {
    cwd: baseDir,
    env: gitEnvironment(),
    stdio: ["ignore", "pipe", "pipe"],
    ...(signal === undefined ? {} : { signal }),
  });
  // Settles once, on whichever comes first; an error (git missing, the signal) is thrown after the read.
  const exited = new Promise<{ code: number | null } | { error: Error }>((resolve) => {
    child.on("error", (error) => resolve({ error }));
    child.on("close", (code) => resolve({ code }));
  });
  let silent: Error | undefined;
  let giveUp: (end: { silent: Error }) => void = () => undefined;
  const gaveUp = new Promise<{ silent: Error }>((resolve) => {
    giveUp = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const silence = silenceMs < 1000 ? `${silenceMs} ms` : `${Math.round(silenceMs / 1000)} s`;
      silent = new Error(`git ${args[0] ?? ""} wrote nothing for ${silence}: stopped`);
      // SIGKILL and the pipes closed: a git stuck in a read may ignore SIGTERM, and a process it started may
      // hold its output open after it is gone.
      child.kill("SIGKILL");
      child.stdout.destroy();
      child.stderr.destroy();
      giveUp({ silent });
    }, silenceMs);
  };
  wait();
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    wait();
    if (stderr.length < MAX_ERROR_BYTES) stderr += text.slice(0, MAX_ERROR_BYTES - stderr.length);
  });
  let record = Buffer.alloc(0);
  let stopped = false;
  let read = 0;
  try {
    reading: for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      wait();
      read += chunk.length;
      if (read > maxBytes) {
        child.kill();
        throw new Error(`git ${args[0] ?? ""} wrote more than ${Math.ceil(maxBytes / 1024 / 1024)} MiB`);
      }
      let start = 0;
      for (let at = chunk.indexOf(recordEnd); at !== -1; at = chunk.indexOf(recordEnd, start)) {
        const piece = Buffer.concat([record, chunk.subarray(start, at)]).subarray(0, keep);
        record = Buffer.alloc(0);
        start = at + 1;
        if (!take(piece.toString("utf8"))) {
          stopped = true;
          break reading;
        }
      }
      if (record.length < keep)
        record = Buffer.concat([record, chunk.subarray(start, start + keep - record.length)]);
    }
    if (stopped) child.kill();
    // A git that closed its output may still hang before it exits: the silence counts until then.
    const end = await Promise.race([exited, gaveUp]);
    if ("silent" in end) throw end.silent;
    if ("error" in end) throw end.error;
    if (!stopped && end.code !== 0) {
      throw new Error(`git ${args[0] ?? ""} failed (exit ${end.code ?? "by signal"}): ${stderr.trim()}`);
    }
  } catch (error) {
    throw silent ?? error;
  } finally {
    clearTimeout(timer);
  }
}
