/** The data-upload rule: a command that sends a local file or a command's output to a host. */
import { quoted } from "../visible.js";
import { type CommandLine, unquoted } from "./pipe-to-shell.js";
import type { Reader } from "./reader.js";
import { isSpace } from "./scan.js";

/** Programs that send data to a host; each command line holding one is read once. */
const SENDERS =
  /\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|nc|ncat|netcat)\b|\/dev\/(?:tcp|udp)\//iy;

// The text is read through its command lines, which pipe-to-shell reads too.
export function dataUpload(_text: string, lines: (index: number) => CommandLine): Reader {
  return {
    pattern: SENDERS,
    next: 0,
    read(match) {
      const { command, offset, end } = lines(match.index);
      // The rest of the command line was read with it.
      this.next = end;
      const how = uploadIn(command);
      if (how === undefined) return undefined;
      return { rule: "data-upload", offset, detail: `${how}: ${quoted(command.trim(), 160)}` };
    },
  };
}

/** curl's options whose value `@file` (or `name@file`) sends a file, `@-` standard input. */
const CURL_DATA = new Set(["-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json"]);
const CURL_FORM = new Set(["-F", "--form"]);
const CURL_UPLOAD = new Set(["-T", "--upload-file"]);
/** A cluster of curl's short options ending in one that takes a value (`-sSd`), the value after it or attached. */
const CURL_SHORT = /^-[a-zA-Z]*?([dFT])(.*)$/;

/**
 * What a command sends of the machine it runs on, in words, or undefined when it sends nothing of it. Read
 * twice when it holds a quote: a word at a time, which finds `sh -c "curl -T out.txt https://…"`, and
 * with quoted text kept in its word ({@link quotedWords}), which finds `curl -H "X: a | b" -T out.txt …`,
 * where the `|` in quotes, read as a pipe, ended the reading of curl's options.
 */
function uploadIn(command: string): string | undefined {
  const how = uploadInWords(command, command.match(/\S+/g) ?? []);
  if (how !== undefined || !/["']/.test(command)) return how;
  return uploadInWords(command, quotedWords(command));
}

/**
 * The words of a command, split at white space, but a stretch in quotes that opens a word or follows its
 * `=` (`"X: a | b"`, `--data="a b"`) is kept in it, up to its closing quote. A quote inside a word
 * (`don't`), or one never closed, is a character like any. Each quote is searched for its closing one
 * at most once, and a quote never closed is not looked for again: linear in the command.
 */
function quotedWords(command: string): string[] {
  const words: string[] = [];
  const unclosed = new Set<number>();
  let at = 0;
  while (at < command.length) {
    while (at < command.length && isSpace(command.charCodeAt(at))) at++;
    const start = at;
    while (at < command.length && !isSpace(command.charCodeAt(at))) {
      const code = command.charCodeAt(at);
      const opens =
        (code === 0x22 || code === 0x27) &&
        !unclosed.has(code) &&
        (at === start || command.charCodeAt(at - 1) === 0x3d);
      const close = opens ? command.indexOf(String.fromCharCode(code), at + 1) : -1;
      if (opens && close === -1) unclosed.add(code);
      at = close === -1 ? at + 1 : close + 1;
    }
    if (at > start) words.push(command.slice(start, at));
  }
  return words;
}

/** What a command of `words` sends of the machine it runs on (see {@link uploadIn}). */
function uploadInWords(command: string, words: readonly string[]): string | undefined {
  const heredoc = command.includes("<<");
  // A row of a Markdown table (`| nc | netcat |`) has pipes and tags, not a pipeline or a redirection.
  const table = /^\s*\|/.test(command);
  const redirected = !table && /(?:^|\s)<\s*[^\s<(]/.test(command);
  let program: string | undefined;
  let piped = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? "";
    if (/^(?:\||&&|\|\||;)$/.test(word)) {
      program = undefined;
      piped = word === "|" && !table;
      continue;
    }
    if (/\/dev\/(?:tcp|udp)\//i.test(word) && /^\d*>/.test(word.replace(/^["']/, ""))) {
      return "writes to a network connection";
    }
    if (program === undefined) {
      const name = baseName(unquoted(word)).toLowerCase();
      if (/^(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat)$/.test(name)) {
        program = name;
        if (/^(?:nc|ncat|netcat)$/.test(name) && (piped || redirected)) {
          return `sends ${piped ? "what is piped into it" : "a file"} to a host with ${name}`;
        }
      }
      if (/\/dev\/(?:tcp|udp)\//i.test(word) && index > 0 && /[<>]&?$/.test(words[index - 1] ?? "")) {
        return "writes to a network connection";
      }
      continue;
    }
    if (program === "curl") {
      // Only an option's value is read, and only a word starting with `-` is one.
      if (!word.startsWith("-")) continue;
      const short = CURL_SHORT.exec(word);
      const option = short ? `-${short[1]}` : word;
      const value = short && short[2] !== "" ? unquoted(short[2] ?? "") : unquoted(words[index + 1] ?? "");
      if (CURL_UPLOAD.has(option)) return "uploads a file with curl";
      if (CURL_FORM.has(option) && /=[@<]/.test(value)) return "uploads a file in a form with curl";
      if (CURL_DATA.has(option)) {
        if (value === "@-" && heredoc) continue;
        if (/^[^=\s]*@/.test(value)) {
          return value.endsWith("@-") ? "sends what is piped into curl" : "sends a file with curl";
        }
        if (value.includes("$(")) return "sends a command's output with curl";
      }
    } else if (program === "wget") {
      if (/^--(?:post|body)-file(?:=|$)/.test(word)) return "sends a file with wget";
    } else if (/^-infile$/i.test(word)) {
      return `sends a file with ${program}`;
    }
  }
  return undefined;
}

/** A path's last part: what follows its last `/` or `\\`. */
function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}
