/** The data-upload rule: a command that sends a local file or a command's output to a host. */
import { quoted } from "../shared/index.js";
import type { CommandLine } from "./pipe-to-shell/index.js";
import type { Reader } from "./reader.js";
import { shellTokens } from "./shell-words.js";

/**
 * Programs that send data to a host, and the calls of code that do (Python's `urlopen`, `requests`,
 * `httpx`; JavaScript's `fetch`, `axios`, `sendBeacon`); each command line holding one is read once.
 */
const SENDERS =
  /\b(?:curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|nc|ncat|netcat|urlopen|requests\.\w+|httpx\.\w+|fetch\s*\(|axios|sendBeacon)\b|\/dev\/(?:tcp|udp)\//iy;

// The text is read through its command lines, which pipe-to-shell reads too.
export function dataUpload(_text: string, lines: (index: number) => CommandLine): Reader {
  return {
    pattern: SENDERS,
    next: 0,
    read(match) {
      const { command, offset, end } = lines(match.index);
      // The rest of the command line was read with it.
      this.next = end;
      const how = uploadIn(command) ?? environmentSent(command);
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
 * as a shell reads it ({@link shellTokens}): a `|` in quotes ends no command (`curl -H "X: a | b" -T
 * out.txt …`), one written without spaces does (`cat key|curl -d @- …`). A word holding a command, quoted
 * whole or substituted (`sh -c "curl -T out.txt …"`, `"$(cat key | curl -d @- …)"`), is read as a command
 * too, once: no deeper, so that each character is read at most twice.
 */
function uploadIn(command: string, nested = true): string | undefined {
  const tokens = shellTokens(command);
  const heredoc = command.includes("<<");
  // A row of a Markdown table (`| nc | netcat |`) has pipes and tags, not a pipeline or a redirection.
  const table = /^\s*\|/.test(command);
  let program: string | undefined;
  let piped = false;
  let redirected: boolean | undefined;
  // Read a token ahead, for an option's value; not gathered in an array first, as most commands end early.
  let next = tokens.next();
  while (!next.done) {
    const token = next.value;
    next = tokens.next();
    if (token.kind === "operator") {
      program = undefined;
      piped = (token.text === "|" || token.text === "|&") && !table;
      continue;
    }
    if (token.kind === "redirection") {
      if (NETWORK_FILE.test(token.file?.text ?? "")) return "writes to a network connection";
      continue;
    }
    const { raw, text } = token.word;
    const inner = nested ? commandIn(raw, text) : undefined;
    const innerHow = inner === undefined ? undefined : uploadIn(inner, false);
    if (innerHow !== undefined) return innerHow;
    if (program === undefined) {
      const name = baseName(text).toLowerCase();
      if (/^(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat)$/.test(name)) {
        program = name;
        if (/^(?:nc|ncat|netcat)$/.test(name)) {
          // Whether a file is redirected in is read once, when an nc is met that nothing is piped into.
          if (!piped) redirected ??= !table && readsFile(command);
          if (piped || redirected) {
            return `sends ${piped ? "what is piped into it" : "a file"} to a host with ${name}`;
          }
        }
      }
      continue;
    }
    if (program === "curl" && text.startsWith("-")) {
      // Only an option's value is read, and only a word starting with `-` is one.
      const short = CURL_SHORT.exec(text);
      const option = short ? `-${short[1]}` : text;
      const after = next.done ? undefined : next.value;
      const value =
        short && short[2] !== "" ? (short[2] ?? "") : after?.kind === "word" ? after.word.text : "";
      if (CURL_UPLOAD.has(option)) return "uploads a file with curl";
      if (CURL_FORM.has(option) && /=[@<]/.test(value)) return "uploads a file in a form with curl";
      if (CURL_DATA.has(option)) {
        if (value === "@-" && heredoc) continue;
        if (readsDataFile(option, value)) {
          return value.endsWith("@-") ? "sends what is piped into curl" : "sends a file with curl";
        }
        if (value.includes("$(")) return "sends a command's output with curl";
      }
    } else if (program === "wget") {
      if (/^--(?:post|body)-file(?:=|$)/.test(text)) return "sends a file with wget";
    } else if (/^-infile$/i.test(text)) {
      return `sends a file with ${program}`;
    }
    // nc sends what it is fed, read above, not its arguments.
    const dump = /^(?:nc|ncat|netcat)$/.test(program) ? null : DUMP.exec(raw);
    if (dump !== null) return `sends the output of ${dump[1]} with ${program}`;
  }
  return undefined;
}

/**
 * Whether a curl data option's value names a file to send: `@file` (`@-` standard input); with
 * `--data-urlencode` also `name@file`. Any other `@` is data (`-d user@example.com`).
 */
function readsDataFile(option: string, value: string): boolean {
  return option === "--data-urlencode" ? /^[^=\s]*@/.test(value) : value.startsWith("@");
}

/** Whether `command` redirects a file other than /dev/null into standard input (`< file`), read only for `nc`. */
function readsFile(command: string): boolean {
  for (const token of shellTokens(command)) {
    // `< /dev/null` gives nc nothing to send (`nc -l 8080 < /dev/null` only listens).
    if (token.kind === "redirection" && /^\d*<$/.test(token.operator) && token.file?.text !== "/dev/null") {
      return true;
    }
  }
  return false;
}

/**
 * A substitution, in any word of a sender's command, of a command whose output is the environment
 * (`env`, `printenv`, `export`, `declare`, `set`, `compgen`) or a file's bytes (`cat`, `base64`): sent in a URL or a
 * header as surely as with `-d` (`curl "https://x/?d=$(env | base64 -w0)"`, `-H "X: $(cat ~/.netrc)"`), which
 * a hostile bump wrote. Not any command: `-H "Authorization: Bearer $(gcloud auth print-access-token)"`
 * sends a token to the API it is for.
 */
const DUMP = /(?:\$\(|`)\s*(env|printenv|export|declare|set|compgen|cat|base64)\b/;

/** A socket bash opens when it is redirected to or from it. */
const NETWORK_FILE = /^\/dev\/(?:tcp|udp)\//i;

/**
 * The command a word may hold, to be read again: its text from the first substitution it opens (`$(`, a
 * backtick, `<(`, `>(`) on, or all of it when quoted with a blank in it (`"curl -T out.txt …"`).
 */
function commandIn(raw: string, text: string): string | undefined {
  const opener = /\$\(|`|[<>]\(/.exec(raw);
  if (opener !== null) return raw.slice(opener.index + opener[0].length);
  return /[ \t]/.test(text) ? text : undefined;
}

/** A path's last part: what follows its last `/` or `\\`. */
function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/**
 * The whole environment read in code: Python's `os.environ` not indexed (`dict(os.environ)`,
 * `repr(os.environ)`, `os.environ.copy()`), JavaScript's `process.env` not indexed
 * (`JSON.stringify(process.env)`, `{...process.env}`), PowerShell's `env:` drive listed (`Get-ChildItem
 * env:`, `gci Env:\\`) and .NET's `GetEnvironmentVariables()`. Not one variable (`os.environ["API_KEY"]`,
 * `os.environ.get(…)`, `process.env.TOKEN`, `$env:TOKEN`): a key sent to the API it is for.
 */
const WHOLE_ENVIRONMENT =
  /\bos\.environ\b(?!\s*\[|\.get\b|\.setdefault\b|\.pop\b)|\bprocess\.env\b(?!\s*(?:\[|\.|\?\.))|\b(?:Get-ChildItem|gci|ls|dir|Get-Item)\s+env:(?![\w$])|\bGetEnvironmentVariables\b/i;

/**
 * Whether a line of code with a call that sends to a host also reads the whole environment, in words:
 * `requests.post(url, json=dict(os.environ))`, `Invoke-RestMethod … -Body (Get-ChildItem env: | Out-String)`.
 * Only the line is read: a call over several lines is not seen whole.
 */
function environmentSent(command: string): string | undefined {
  const whole = WHOLE_ENVIRONMENT.exec(command);
  return whole === null ? undefined : `sends the whole environment (${whole[0]}) to a host`;
}
