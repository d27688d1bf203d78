import type { Hit } from "./rules.js";
import { excerpt, visible } from "./text.js";

const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;
const DOWNLOADERS = new RegExp(DOWNLOADER.source, "gi");
/** Shells read a script from standard input unless `-c` gives them one. */
const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^pwsh$|^powershell(?:\.exe)?$/i;
/** These read a program from standard input only without a program of their own (`-c`, `-m`, `-e`, a file). */
const INTERPRETER = /^(?:python[\d.]*|perl|ruby|node|php)$/i;
const INTERPRETER_PROGRAM = /^-[a-zA-Z]*[cmeEnpr]|^--(?:eval|print)\b/;
const SHELL_PROGRAM = /^-[a-zA-Z]*c$|^-(?:Command|File)$/i;
/** `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`, `iex (iwr …)`, `iex ((New-Object Net.WebClient)…)`. */
const RUN_DOWNLOAD =
  /(?:\b(?:(?:ba|z|da|k)?sh|source)\s+<\(|(?:^|[\s;&|(])\.\s+<\(|\b(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+["']?(?:\$\(|`))\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\b\s*[(\s]\s*\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * A download run as code: piped into a shell or into an interpreter that reads its program from standard
 * input, or run through `<(…)`, `$(…)` or PowerShell's `iex`. Whatever the server at the other end sends
 * on the day runs with the user's rights, and no review of the skill saw it. `curl -o file` and a
 * download piped into `jq`, `tar` or `python -m json.tool` read data and are not flagged.
 */
export function pipeToShellHits(text: string): Hit[] {
  const hits: Hit[] = [];
  let done = -1;
  for (const match of text.matchAll(DOWNLOADERS)) {
    if (match.index < done) continue;
    const { command, offset, end } = commandAround(text, match.index);
    done = end;
    const runner = RUN_DOWNLOAD.test(command) ? "run as code" : pipedInto(command);
    if (runner !== undefined) {
      hits.push({
        rule: "pipe-to-shell",
        offset,
        detail: `a download ${runner}: ${JSON.stringify(visible(excerpt(command.trim(), 160)))}`,
      });
    }
  }
  return hits;
}

/**
 * The command line holding `index`, joined across trailing backslashes as a shell reads it, and the
 * offsets where it starts and ends.
 */
function commandAround(text: string, index: number): { command: string; offset: number; end: number } {
  let offset = text.lastIndexOf("\n", index - 1) + 1;
  while (offset > 0 && /\\\r?\n$/.test(text.slice(Math.max(0, offset - 3), offset))) {
    offset = text.lastIndexOf("\n", offset - 2) + 1;
  }
  const lines: string[] = [];
  for (let start = offset; ; ) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).replace(/\r$/, "");
    if (!line.endsWith("\\") || newline === -1) {
      lines.push(line);
      return { command: lines.join(" "), offset, end };
    }
    lines.push(line.slice(0, -1));
    start = end + 1;
  }
}

/** `piped into sh`, when a pipe after the download leads into something that runs what it reads. */
function pipedInto(command: string): string | undefined {
  const download = DOWNLOADER.exec(command);
  if (download === null) return undefined;
  const stages = command
    .slice(download.index)
    .split(/(?<!\|)\|(?![|&])/)
    .slice(1);
  for (const stage of stages) {
    const words = (stage.split(/[;&<>]|\s\d>/)[0] ?? "")
      .trim()
      .replace(/^(?:sudo(?:\s+-\S+)*\s+|env(?:\s+\w+=\S*)*\s+)+/, "")
      .split(/[\s)]+/)
      .filter((word) => word !== "");
    const [program = "", ...args] = words;
    const name = program.replace(/^["'`]+|["'`]+$/g, "").replace(/^.*\//, "");
    if (/^(?:iex|Invoke-Expression)$/i.test(name)) return `piped into ${name}`;
    const gives = SHELL.test(name) ? SHELL_PROGRAM : INTERPRETER.test(name) ? INTERPRETER_PROGRAM : undefined;
    if (gives !== undefined && readsProgram(args, gives)) return `piped into ${name}`;
  }
  return undefined;
}

/**
 * Whether a shell or interpreter given `args` runs standard input: it does unless a flag gives it a
 * program (`-c`, `-m json.tool`) or an argument names a script file; `-`, `-s` and `--` say "stdin, and
 * what follows are its arguments".
 */
function readsProgram(args: readonly string[], givesProgram: RegExp): boolean {
  for (const arg of args.map((word) => word.replace(/^["'`]+|["'`]+$/g, ""))) {
    if (arg === "-" || arg === "-s" || arg === "--") return true;
    if (givesProgram.test(arg) || !arg.startsWith("-")) return false;
  }
  return true;
}

/**
 * HTML comments outside code: a rendered SKILL.md does not show them, but a model reads them. Comments
 * shown inside fenced code blocks or code spans are examples a reader sees.
 */
export function htmlCommentHits(text: string): Hit[] {
  if (!text.includes("<!--")) return [];
  const hits: Hit[] = [];
  let fence: string | undefined;
  let offset = 0;
  while (offset < text.length) {
    const end = text.indexOf("\n", offset);
    const lineEnd = end === -1 ? text.length : end;
    const line = text.slice(offset, lineEnd);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else {
      const opened = withoutCodeSpans(line).indexOf("<!--");
      if (opened !== -1) {
        const close = text.indexOf("-->", offset + opened + 4);
        const inside = text.slice(offset + opened + 4, close === -1 ? text.length : close);
        hits.push({
          rule: "html-comment",
          offset: offset + opened,
          detail: `hidden from the rendered view: ${JSON.stringify(visible(excerpt(inside.replace(/\s+/g, " ").trim(), 120)))}`,
        });
        const resume = close === -1 ? text.length : text.indexOf("\n", close);
        offset = resume === -1 ? text.length : resume + 1;
        continue;
      }
    }
    offset = lineEnd + 1;
  }
  return hits;
}

/** The line with code spans blanked out, keeping every offset where it was. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`][\s\S]*?\1/g, (span) => " ".repeat(span.length));
}

/**
 * Runs of base64 or hex characters; the lookbehind starts a match only where a run starts, so a file
 * costs one pass whatever its runs' lengths.
 */
const MIN_BLOB = 1024;
const ENCODED_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{1024,}={0,2}/g;
const HEX = /^[0-9a-fA-F]+$/;
/** Magic numbers of images and fonts: a blob that decodes to one is an embedded picture, not hidden text. */
const MEDIA_MAGIC = [
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x47, 0x49, 0x46, 0x38],
  [0x52, 0x49, 0x46, 0x46],
  [0x77, 0x4f, 0x46, 0x46],
  [0x77, 0x4f, 0x46, 0x32],
  [0x00, 0x01, 0x00, 0x00],
  [0x4f, 0x54, 0x54, 0x4f],
] as const;

/**
 * Base64 or hex of 1 KiB or more: text nobody reviews, which a script may decode and run. A run that
 * decodes to an image or a font (a `data:` URI in HTML, a notebook's output) is a picture, and a run
 * without the variety of encoded data (a row of dashes) is not a blob.
 */
export function encodedBlobHits(text: string): Hit[] {
  const hits: Hit[] = [];
  for (const { line, offset } of longLines(text, MIN_BLOB)) {
    for (const match of line.matchAll(ENCODED_RUN)) {
      const hit = blobHit(match[0], offset + match.index);
      if (hit) hits.push(hit);
    }
  }
  return hits;
}

/** Lines of `length` characters or more: a blob holds no line break, and most files hold no such line. */
function* longLines(text: string, length: number): Generator<{ line: string; offset: number }> {
  for (let start = 0; start + length <= text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    if (end - start >= length) yield { line: text.slice(start, end), offset: start };
    start = end + 1;
  }
}

function blobHit(run: string, offset: number): Hit | undefined {
  const kind = HEX.test(run) ? "hex" : isBase64Like(run) ? "base64" : undefined;
  if (kind === undefined || (kind === "base64" && decodesToMedia(run))) return undefined;
  const bytes = kind === "hex" ? run.length / 2 : Math.floor((run.replace(/=+$/, "").length * 3) / 4);
  const preview = kind === "base64" ? readableStart(run) : "";
  return {
    rule: "encoded-blob",
    offset,
    detail: `${run.length.toLocaleString("en-US")} characters of ${kind} (${kibibytes(bytes)} decoded)${preview}`,
  };
}

function isBase64Like(run: string): boolean {
  return /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) && new Set(run).size >= 10;
}

function decodeStart(run: string, characters: number): Buffer {
  return Buffer.from(run.slice(0, characters).replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

function decodesToMedia(run: string): boolean {
  const start = decodeStart(run, 16);
  return MEDIA_MAGIC.some((magic) => magic.every((byte, index) => start[index] === byte));
}

/** `, decoding to "…"` when the blob starts with readable text: what a reviewer most wants to see. */
function readableStart(run: string): string {
  const text = decodeStart(run, 160).toString("latin1");
  return /^[\x20-\x7e\t\n\r]{16,}$/.test(text) ? `, decoding to ${JSON.stringify(excerpt(text, 100))}` : "";
}

function kibibytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

const MARKDOWN_LINK =
  /\[([^\]\n]{1,300})\]\(\s*<?(https?:\/\/[^\s)>]+)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/gi;
const HTML_LINK = /<a\s[^>]*?href\s*=\s*["']?(https?:\/\/[^"'\s>]+)["']?[^>]*>([\s\S]{1,300}?)<\/a\s*>/gi;
/** Link text that is a whole address: a scheme or `www.`, else a host with one of the common endings. */
const SHOWN_ADDRESS = /^(?:(https?):\/\/)?((?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,})(?::\d+)?(?:[/?#]\S*)?$/iu;
/**
 * Endings that make bare link text an address (`example.com`); others (`.md`, `.py`, `.sh`) are more
 * often file names than hosts.
 */
const COMMON_ENDINGS = new Set(["com", "org", "net", "io", "dev", "ai", "app", "co", "gov", "edu", "info"]);

/**
 * Links whose text shows one host and whose target is another: the reader trusts what is shown, the agent
 * follows the target. A subdomain of the host shown (`docs.` of `example.com`, or `www.`) is the same site.
 */
export function deceptiveLinkHits(text: string): Hit[] {
  if (!text.includes("](http") && !/href/i.test(text)) return [];
  const hits: Hit[] = [];
  const links = [
    ...[...text.matchAll(MARKDOWN_LINK)].map((match) => ({
      shown: match[1],
      target: match[2],
      offset: match.index,
    })),
    ...[...text.matchAll(HTML_LINK)].map((match) => ({
      shown: match[2],
      target: match[1],
      offset: match.index,
    })),
  ].sort((a, b) => a.offset - b.offset);
  for (const { shown = "", target = "", offset } of links) {
    if (text[offset - 1] === "!") continue;
    const shownHost = hostShown(shown);
    const targetHost = hostOf(target);
    if (shownHost === undefined || targetHost === undefined || sameSite(shownHost, targetHost)) continue;
    hits.push({
      rule: "deceptive-link",
      offset,
      detail: `link text shows ${visible(shownHost)} but the link goes to ${visible(targetHost)}`,
    });
  }
  return hits;
}

function hostShown(shown: string): string | undefined {
  const plain = shown
    .replace(/<[^>]*>/g, "")
    .replace(/[`*_]/g, "")
    .trim();
  const match = SHOWN_ADDRESS.exec(plain);
  const host = match?.[2];
  if (match === null || host === undefined) return undefined;
  const ending = host.slice(host.lastIndexOf(".") + 1).toLowerCase();
  if (match[1] === undefined && !/^www\./i.test(host) && !COMMON_ENDINGS.has(ending)) return undefined;
  return hostOf(`http://${host}`);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function sameSite(a: string, b: string): boolean {
  const bare = (host: string) => host.replace(/^www\./, "");
  const [x, y] = [bare(a), bare(b)];
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}
