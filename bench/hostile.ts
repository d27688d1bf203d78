/**
 * The hostile corpus (issue 24): skills folders built to stop, stall or bloat the server, each beside an
 * ordinary pack, at growing sizes. For each, the real server's start (spawn to the first 200 of /health,
 * its peak resident memory, the inspection's share) and the audit (`audit-skills`, wall time and peak
 * memory): linear time and a flat memory ceiling are what a hostile file must not break. Each step is cut
 * at a time cap and reported as over it, and the larger sizes of that case are then not run, so the bench
 * ends in bounded time whatever the rules cost.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { mkdir, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../scripts/free-port.js";
import { manyFindings } from "../test/helpers/many-findings.js";
import { ROOT } from "./processes.js";
import { type StartOrderPlan, thisBuildFirst } from "./start-order.js";

const SERVER_ENTRY = path.join(ROOT, "dist/main.js");
const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const AUDIT_SCRIPT = path.join(ROOT, "scripts/audit-skills.ts");
const MiB = 1024 * 1024;
/** Skills of the ordinary pack beside each hostile one: what must still be served. */
const ORDINARY_SKILLS = 20;

/** One process run as the bench saw it. */
export interface Measured {
  /** `ready`: the server answered /health; `exited`: the process ended (the audit's normal end); `over`: cut at the cap. */
  readonly outcome: "ready" | "exited" | "over";
  readonly ms: number;
  /** The largest VmHWM seen while it ran (sampled every 20 ms). */
  readonly peakRssBytes: number;
  readonly exitCode?: number | null;
  /** The server's own figure from its `ready` log line: every skill's files read, hashed and audited. */
  readonly inspectionMs?: number;
  /** Skills the server serves, from /health. */
  readonly served?: number;
  /** Why a start failed: the line the server refused with. */
  readonly failure?: string;
}

export interface HostileRow {
  readonly kind: string;
  /** What grows with the step, as the table shows it. */
  readonly size: string;
  /** The bytes of hostile content on disk (sparse files count their length). */
  readonly bytes: number;
  readonly start?: Measured;
  readonly audit?: Measured;
  /** The start of the build compared against (`--compare`), when given. */
  readonly baselineStart?: Measured;
  /** With `--compare`, the builds in the order they started on the folder: `server` and that build's commit. */
  readonly startOrder?: readonly string[];
  /** Set when the step was not run because a smaller one went over the cap. */
  readonly skipped?: string;
}

interface HostileOptions {
  readonly workDir: string;
  /** Each start and each audit is cut after this long. */
  readonly capSeconds: number;
  readonly progress: (line: string) => void;
  /** Another build (its `dist/main.js` and a name for it), whose starts are measured too. */
  readonly baseline?: { readonly entry: string; readonly name: string };
  /** Which of the two starts first on each step's folder, step by step over the run (`--start-order`). */
  readonly startOrder: StartOrderPlan;
  /** Only the cases whose kind holds this text, when given. */
  readonly kind?: string;
}

/** A hostile case: how to write its folder at one step, and what the step is called. */
interface HostileCase {
  readonly kind: string;
  readonly steps: readonly { readonly size: string; readonly write: (dir: string) => Promise<number> }[];
}

const TEXT_STEPS_MIB = [1, 2, 4, 8, 15];

/** A file of `mib` MiB made of `unit` repeated on one line, in one hostile skill. */
function repeatedText(kind: string, unit: string): HostileCase {
  return {
    kind,
    steps: TEXT_STEPS_MIB.map((mib) => ({
      size: `${mib} MiB`,
      write: async (dir) => {
        const text = unit.repeat(Math.floor((mib * MiB) / unit.length));
        await writeSkill(dir, "hostile", { "payload.md": text });
        return text.length;
      },
    })),
  };
}

/**
 * Steps of 1 and 4 skills (`<name>-<i>`), each a SKILL.md whose body is one of `words`' units repeated to
 * 0.9 MiB, named by its first; `distinct`: a unit shorter in each next skill, so that no two share the word.
 */
function oneWordSteps(
  name: string,
  words: readonly (readonly [string, string])[],
  distinct: boolean,
): HostileCase["steps"] {
  return words.flatMap(([what, unit]) =>
    [1, 4].map((count) => ({
      size: `${what}, ${count} skills`,
      write: async (dir: string) => {
        let bytes = 0;
        for (let i = 0; i < count; i++) {
          const body = unit.repeat(Math.floor((0.9 * MiB) / Buffer.byteLength(unit)) - (distinct ? i : 0));
          const title = `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
          const text = `---\nname: ${name}-${i}\ndescription: ${title} ${i}.\n---\n\n${body}\n`;
          await mkdir(path.join(dir, `hostile/${name}-${i}`), { recursive: true });
          await writeFile(path.join(dir, `hostile/${name}-${i}/SKILL.md`), text);
          bytes += Buffer.byteLength(text);
        }
        return bytes;
      },
    })),
  );
}

/**
 * Words of two parts in camel case (`qwertAsdfg`), all different: seeded, so runs compare. The search
 * notes each part of a camel-case word; it kept every one as a string (270 MiB more at 8 skills).
 */
function camelCaseWords(size: number, seed: number): string {
  let state = seed;
  const letter = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return String.fromCharCode(97 + (state % 26));
  };
  const part = (length: number) => Array.from({ length }, letter).join("");
  const words: string[] = [];
  for (let length = 0; length < size; length += 13) {
    const second = part(6);
    words.push(`${part(6)}${second[0]?.toUpperCase()}${second.slice(1)}`);
  }
  return words.join(" ");
}

const CASES: readonly HostileCase[] = [
  // One line of base64: the encoded-blob rule's regex overflowed the stack at 8 MiB.
  repeatedText("base64, one line", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkrLw=="),
  // Link openers that never close: super-quadratic in the link rules (512 KiB took 65 s).
  repeatedText("`[a](http://x` repeated", "[a](http://x"),
  repeatedText("`<a href=x ` repeated", "<a href=x "),
  {
    // Sparse files of 15 MiB, many per skill, in two skills: all were held at once (1.9 GB at 60 each).
    kind: "sparse 15 MiB files, two skills",
    steps: [8, 15, 30, 60].map((count) => ({
      size: `2 × ${count} files`,
      write: async (dir) => {
        for (const name of ["sparse-one", "sparse-two"]) {
          const files = Object.fromEntries(Array.from({ length: count }, (_, i) => [`blobs/${i}.bin`, ""]));
          await writeSkill(dir, name, files);
          for (const file of Object.keys(files))
            await truncate(path.join(dir, "hostile", name, file), 15 * MiB);
        }
        return 2 * count * 15 * MiB;
      },
    })),
  },
  {
    // Skills whose SKILL.md (which is searched, and may be 1 MiB) is distinct camel-case words.
    kind: "distinct camel-case words, 0.9 MiB a skill",
    steps: [1, 4, 8].map((count) => ({
      size: `${count} skills`,
      write: async (dir) => {
        let bytes = 0;
        for (let i = 0; i < count; i++) {
          const text = `---\nname: camel-${i}\ndescription: Camel ${i}.\n---\n\n${camelCaseWords(0.9 * MiB, i + 1)}\n`;
          await mkdir(path.join(dir, `hostile/camel-${i}`), { recursive: true });
          await writeFile(path.join(dir, `hostile/camel-${i}/SKILL.md`), text);
          bytes += text.length;
        }
        return bytes;
      },
    })),
  },
  {
    // A SKILL.md (searched, up to 1 MiB) of one word the search reads the long way (bench/linear.ts times
    // the rules alone): the same word at each step, 1 to 8 skills of it, for what each skill adds.
    kind: "SKILL.md of one hostile word, 0.9 MiB a skill",
    steps: oneWordSteps(
      "word",
      [
        ["a compound of accented parts", "é-"],
        ["a Chinese run", "数据"],
        ["apostrophes in a compound", "a’b-"],
      ],
      false,
    ),
  },
  {
    // A SKILL.md of one long word with nothing to split it at, a letter shorter in each skill so that no
    // two skills share it: each word was folded, stemmed (Porter2 holds a number a character) and keyed
    // whole, a word no request (at most 1,000 characters) can ask for.
    kind: "SKILL.md of one long word, distinct a skill, 0.9 MiB a skill",
    steps: oneWordSteps(
      "long",
      [
        ["letters a", "a"],
        ["accented Latin", "é"],
        ["Cyrillic", "ж"],
        // These take the Unicode path, folded with regular expressions: `e` and a combining accent, and ß.
        ["e and a combining accent", "e\u0301"],
        ["ß", "ß"],
      ],
      true,
    ),
  },
  {
    // Symlinks leading many paths to one text file of 4 MiB: each path was read and audited anew (64: a
    // minute to start), a stall that costs a few kilobytes of disk.
    kind: "symlinks to one 4 MiB text file",
    steps: [16, 32, 64, 128].map((count) => ({
      size: `${count} links`,
      write: async (dir) => {
        const unit = "Some ordinary prose about [links](http://example.com) and `code` to read. ";
        await writeSkill(dir, "farm", { "payload.md": unit.repeat(Math.floor((4 * MiB) / unit.length)) });
        await mkdir(path.join(dir, "hostile/farm/links"));
        for (let i = 0; i < count; i++) {
          await symlink("../payload.md", path.join(dir, `hostile/farm/links/${i}.md`));
        }
        return 4 * MiB;
      },
    })),
  },
  {
    // Symlinks leading many paths to one small file of 252 findings (21 lines of each of 12 rules, 84 of
    // them high): each path kept a copy of every finding, named for it, so memory grew as links × findings
    // (4,000 links: 278 MiB), where the findings are one file's.
    kind: "symlinks to one file of 252 findings",
    steps: [1000, 2000, 4000].map((count) => ({
      size: `${count} links`,
      write: async (dir) => {
        // 21 findings of each of 12 rules (20 lines each, then one that counts the rest): 84 high, 168 medium.
        const payload = manyFindings(30);
        await writeSkill(dir, "many", { "payload.md": payload });
        await mkdir(path.join(dir, "hostile/many/links"));
        for (let i = 0; i < count; i++) {
          await symlink("../payload.md", path.join(dir, `hostile/many/links/${i}.md`));
        }
        return Buffer.byteLength(payload);
      },
    })),
  },
  {
    // 80,000 keys in just under 1 MiB: parsed twice, seconds of CPU.
    kind: "frontmatter of 80,000 keys",
    steps: [
      {
        size: "1 MiB",
        write: async (dir) => {
          const keys = Array.from({ length: 80_000 }, (_, i) => `k${i}: v`).join("\n");
          const text = `---\nname: keys\ndescription: Keys.\n${keys}\n---\n`;
          await mkdir(path.join(dir, "hostile/keys"), { recursive: true });
          await writeFile(path.join(dir, "hostile/keys/SKILL.md"), text);
          return Buffer.byteLength(text);
        },
      },
    ],
  },
  {
    // Folders nested past PATH_MAX, and names that are not UTF-8: each stopped the start.
    kind: "past PATH_MAX, Latin-1 names",
    steps: [
      {
        size: "22 × 200-byte folders, 100 names",
        write: async (dir) => {
          await writeSkill(dir, "odd", {});
          // Each made from inside its parent: no call is given a path past PATH_MAX until the walk's.
          const script = 'cd -P "$1" && shift && for d in "$@"; do mkdir "$d" && cd -P "$d" || exit 1; done';
          const folders = Array.from({ length: 22 }, () => "d".repeat(200));
          await runToEnd("sh", ["-c", script, "sh", path.join(dir, "hostile/odd"), ...folders]);
          for (let i = 0; i < 100; i++) {
            await writeFile(Buffer.from(`${dir}/hostile/odd/caf\xe9-${i}.txt`, "latin1"), "x");
          }
          return 100;
        },
      },
    ],
  },
];

/** Runs every case at each of its steps; returns one row per step. */
export async function measureHostile(options: HostileOptions): Promise<HostileRow[]> {
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run npm run build first`);
  const rows: HostileRow[] = [];
  // The steps that started both builds so far: their order alternates over the run, not within each case,
  // since most cases have a step or two before one goes over the cap.
  let compared = 0;
  for (const hostile of CASES) {
    if (options.kind !== undefined && !hostile.kind.includes(options.kind)) continue;
    let over: string | undefined;
    for (const [index, step] of hostile.steps.entries()) {
      if (over !== undefined) {
        rows.push({ kind: hostile.kind, size: step.size, bytes: 0, skipped: over });
        continue;
      }
      const dir = path.join(options.workDir, `hostile-${CASES.indexOf(hostile)}-${index}`);
      await writeOrdinaryPack(dir);
      const bytes = await step.write(dir);
      options.progress(`bench: hostile: ${hostile.kind}, ${step.size}`);
      // The audit reads every file first, so that both starts find them in the page cache: a start that
      // came first read them cold, and the build compared against seemed 30-40% faster on sparse files.
      const audit = await measureAudit(dir, options);
      const { start, baselineStart, startOrder } = await measureStarts(dir, options, compared);
      if (startOrder !== undefined) {
        compared++;
        options.progress(`  started in this order: ${startOrder.join(", ")}`);
      }
      rows.push({
        kind: hostile.kind,
        size: step.size,
        bytes,
        start,
        audit,
        ...(baselineStart ? { baselineStart } : {}),
        ...(startOrder ? { startOrder } : {}),
      });
      // Deep trees need rm's own walk: Node's takes whole paths.
      await runToEnd("rm", ["-rf", dir]);
      if (start.outcome === "over" || audit.outcome === "over") {
        over = `${step.size} took over ${options.capSeconds} s`;
      }
    }
  }
  return rows;
}

/**
 * This build's start on `dir`, and with `--compare` that build's, in the order planned for the `compared`th
 * step that starts both: the build started second found what the first left in the caches, and this build
 * always went first.
 */
async function measureStarts(
  dir: string,
  options: HostileOptions,
  compared: number,
): Promise<Pick<HostileRow, "start" | "baselineStart" | "startOrder"> & { readonly start: Measured }> {
  const { baseline } = options;
  const ours = () => measureStart(dir, SERVER_ENTRY, options, "start");
  if (baseline === undefined) return { start: await ours() };
  const theirs = () => measureStart(dir, baseline.entry, options, "baseline");
  if (thisBuildFirst(options.startOrder, compared)) {
    const start = await ours();
    return { start, baselineStart: await theirs(), startOrder: ["server", baseline.name] };
  }
  const baselineStart = await theirs();
  return { start: await ours(), baselineStart, startOrder: [baseline.name, "server"] };
}

async function measureStart(
  dir: string,
  entry: string,
  options: HostileOptions,
  name: string,
): Promise<Measured> {
  const port = await freePort();
  const logFile = path.join(options.workDir, `${name}.log`);
  const env = { SKILLS_DIR: dir, HOST: "127.0.0.1", PORT: String(port), SHUTDOWN_DRAIN_MS: "0" };
  const measured = await runMeasured(
    [entry],
    env,
    logFile,
    options.capSeconds,
    `http://127.0.0.1:${port}/health`,
  );
  if (measured.outcome !== "ready") return measured;
  const ready = logLines(logFile).find((line) => line.msg === "ready");
  return {
    ...measured,
    ...(typeof ready?.inspectionMs === "number" ? { inspectionMs: ready.inspectionMs } : {}),
  };
}

async function measureAudit(dir: string, options: HostileOptions): Promise<Measured> {
  const logFile = path.join(options.workDir, "audit.log");
  const args = ["--import", TSX_LOADER, AUDIT_SCRIPT, dir, "--json", "--fail-on", "never"];
  return runMeasured(args, {}, logFile, options.capSeconds);
}

/**
 * Runs node with `args` until it exits, answers 200 at `readyUrl` (then stopped), or runs past the cap
 * (then killed); samples its peak resident memory meanwhile.
 */
async function runMeasured(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  logFile: string,
  capSeconds: number,
  readyUrl?: string,
): Promise<Measured> {
  const log = openSync(logFile, "w");
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolve();
    }),
  );
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, peakResidentBytes(child.pid ?? 0));
  };
  const sampler = setInterval(sample, 20);
  let outcome: Measured["outcome"] = "over";
  let served: number | undefined;
  try {
    while (performance.now() - started < capSeconds * 1000) {
      if (exitCode !== undefined) {
        outcome = "exited";
        break;
      }
      if (readyUrl !== undefined) {
        served = await healthSkills(readyUrl);
        if (served !== undefined) {
          outcome = "ready";
          break;
        }
      }
      await sleep(20);
    }
    sample();
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  if (exitCode === undefined) {
    child.kill(outcome === "ready" ? "SIGTERM" : "SIGKILL");
    await exited;
  }
  const failure = outcome === "exited" && readyUrl !== undefined ? refusal(logFile) : undefined;
  return {
    outcome,
    ms,
    peakRssBytes: peak,
    ...(outcome === "exited" ? { exitCode } : {}),
    ...(served === undefined ? {} : { served }),
    ...(failure === undefined ? {} : { failure }),
  };
}

/** The skills count of /health once the server answers; undefined while it does not. */
async function healthSkills(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url);
    if (!response.ok) return undefined;
    const { skills } = (await response.json()) as { skills?: unknown };
    return typeof skills === "number" ? skills : undefined;
  } catch {
    return undefined;
  }
}

/** VmHWM of `pid` (Linux /proc): its peak resident memory so far; 0 once it is gone. */
function peakResidentBytes(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function logLines(logFile: string): Record<string, unknown>[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The line the server refused to start with (`skills-mcp: …`), or the last it wrote. */
function refusal(logFile: string): string {
  const lines = readFileSync(logFile, "utf8").trimEnd().split("\n");
  const line = lines.find((text) => text.startsWith("skills-mcp:")) ?? lines.at(-1) ?? "";
  return line.slice(0, 160);
}

async function writeOrdinaryPack(dir: string): Promise<void> {
  for (let i = 0; i < ORDINARY_SKILLS; i++) {
    const name = `ordinary-${i}`;
    await mkdir(path.join(dir, "ok", name), { recursive: true });
    await writeFile(
      path.join(dir, "ok", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: An ordinary skill, number ${i}.\n---\n\n# ${name}\n\nDoes ordinary things.\n`,
    );
  }
}

/** A skill `name` of pack `hostile`, with its SKILL.md and `files`. */
async function writeSkill(dir: string, name: string, files: Record<string, string>): Promise<void> {
  const folder = path.join(dir, "hostile", name);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: Hostile ${name}.\n---\n`);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
    await writeFile(path.join(folder, file), text);
  }
}

function runToEnd(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`)),
    );
  });
}

/** The rows as a Markdown table. */
export function hostileTable(rows: readonly HostileRow[], capSeconds: number, baseline?: string): string {
  const lines = [
    "### Hostile corpus: each case beside an ordinary pack of 20 skills",
    "",
    `| case | size | start ms | inspection ms | start peak RSS | skills served | audit ms | audit peak RSS |${baseline ? ` ${baseline} start ms | ${baseline} peak RSS | started first |` : ""}`,
    `|---|---|---:|---:|---:|---:|---:|---:|${baseline ? "---:|---:|---|" : ""}`,
  ];
  for (const row of rows) {
    if (row.skipped !== undefined) {
      lines.push(
        `| ${row.kind} | ${row.size} | not run: ${row.skipped} | | | | | |${baseline ? " | | |" : ""}`,
      );
      continue;
    }
    const { start, audit, baselineStart } = row;
    lines.push(
      `| ${row.kind} | ${row.size} | ${time(start, capSeconds)} | ${start?.inspectionMs ?? "–"} | ${rss(start)} | ` +
        `${start?.served ?? "–"} | ${time(audit, capSeconds)} | ${rss(audit)} |` +
        (baseline
          ? ` ${time(baselineStart, capSeconds)} | ${rss(baselineStart)} | ${startedFirst(row.startOrder)} |`
          : ""),
    );
  }
  lines.push(
    "",
    `Start: spawn to the first 200 of \`/health\` (\`node dist/main.js\`, no saved index); audit: \`audit-skills --json\`. ` +
      `Peak RSS: the process's VmHWM, sampled every 20 ms. A step is cut at ${capSeconds} s.` +
      (baseline
        ? " Started first: the build started first on the step's folder, the other right after it (`--start-order`; " +
          "alternating step by step over the run unless it says otherwise)."
        : ""),
  );
  return lines.join("\n");
}

/** The build started first, this one named "this build"; "–" where the order was not recorded. */
function startedFirst(order: readonly string[] | undefined): string {
  const first = order?.[0];
  if (first === undefined) return "–";
  return first === "server" ? "this build" : first;
}

function time(measured: Measured | undefined, capSeconds: number): string {
  if (measured === undefined) return "–";
  if (measured.outcome === "over") return `over ${capSeconds} s`;
  if (measured.failure !== undefined) return `failed: ${measured.failure.replaceAll("|", "\\|")}`;
  return `${Math.round(measured.ms)}`;
}

function rss(measured: Measured | undefined): string {
  return measured === undefined || measured.peakRssBytes === 0
    ? "–"
    : `${Math.round(measured.peakRssBytes / MiB)} MiB`;
}
