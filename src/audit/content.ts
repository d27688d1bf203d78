import { excerpt, visible } from "../catalog/index.js";
import type { Hit } from "./rules.js";
import { indexOf, isSpace, NOWHERE, type Steps, searchForward } from "./scan.js";
import { lineBreakOf } from "./text.js";

const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;
const DOWNLOADERS = new RegExp(DOWNLOADER.source, "gi");
/** Shells read a script from standard input unless `-c` gives them one; `$SHELL` is the user's. */
const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^pwsh$|^powershell(?:\.exe)?$|^\$(?:SHELL|\{SHELL\})$/i;
/** These read a program from standard input only without a program of their own (`-c`, `-m`, `-e`, a file). */
const INTERPRETER = /^(?:python[\d.]*|perl|ruby|node|php)$/i;
const INTERPRETER_PROGRAM = /^-[a-zA-Z]*[cmeEnpr]|^--(?:eval|print)\b/;
/** Runtimes whose `run` subcommand, or themselves, run a program named `-` (standard input). */
const RUNTIME = /^(?:deno|bun)$/i;
/** A file that is standard input: a shell or interpreter given it as its script reads the download. */
const STDIN_FILE = /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/;
const SHELL_PROGRAM = /^-[a-zA-Z]*c$|^-(?:Command|File)$/i;
/**
 * `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`, `iex (iwr …)`, `iex ((New-Object Net.WebClient)…)`.
 * Between `iex` and the download: white space and up to two `(`, at least one of either, matched one way
 * only (`\s*[(\s]\s*\(?\s*` matched it in cubically many ways, and `iex` and many spaces stalled the audit).
 */
const RUN_DOWNLOAD =
  /(?:\b(?:(?:ba|z|da|k)?sh|source)\s+<\(|(?:^|[\s;&|(])\.\s+<\(|\b(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+["']?(?:\$\(|`))\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\b(?=[(\s])\s*(?:\(\s*){0,2}(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * A download run as code: piped into a shell or into an interpreter that reads its program from standard
 * input, or run through `<(…)`, `$(…)` or PowerShell's `iex`. Whatever the server at the other end sends
 * on the day runs with the user's rights, and no review of the skill saw it. `curl -o file` and a
 * download piped into `jq`, `tar` or `python -m json.tool` read data and are not flagged.
 */
export function* pipeToShellHits(text: string): Generator<Hit> {
  let done = -1;
  for (const match of text.matchAll(DOWNLOADERS)) {
    if (match.index < done) continue;
    const { command, offset, end } = commandAround(text, match.index);
    done = end;
    const runner = RUN_DOWNLOAD.test(command) ? "run as code" : pipedInto(command);
    if (runner !== undefined) {
      yield {
        rule: "pipe-to-shell",
        offset,
        detail: `a download ${runner}: ${JSON.stringify(visible(excerpt(command.trim(), 160)))}`,
      };
    }
  }
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
  let end = offset;
  for (let start = offset; ; start = end + 1) {
    const newline = text.indexOf("\n", start);
    end = newline === -1 ? text.length : newline;
    const last = end - 1 >= start && text[end - 1] === "\r" ? end - 2 : end - 1;
    if (newline === -1 || last < start || text[last] !== "\\") break;
  }
  const command = joinContinued(text, offset, end);
  return { command: command.endsWith("\r") ? command.slice(0, -1) : command, offset, end };
}

/**
 * The text from `start` to `end` (lines continued with a trailing backslash) with each backslash and the
 * line break after it read as one space. Built in a buffer: a file of millions of continued lines made a
 * regular expression's replacement hold hundreds of megabytes.
 */
function joinContinued(text: string, start: number, end: number): string {
  const newline = text.indexOf("\n", start);
  if (newline === -1 || newline >= end) return text.slice(start, end);
  const units = new Uint16Array(end - start);
  let length = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    const breakAt = code === 0x5c && text.charCodeAt(index + 1) === 0x0d ? index + 2 : index + 1;
    if (code === 0x5c && breakAt < end && text.charCodeAt(breakAt) === 0x0a) {
      units[length++] = 0x20;
      index = breakAt;
    } else {
      units[length++] = code;
    }
  }
  const parts: string[] = [];
  for (let from = 0; from < length; from += CHUNK) {
    parts.push(String.fromCharCode(...units.subarray(from, Math.min(length, from + CHUNK))));
  }
  return parts.join("");
}

/** Characters turned into a string at once: few enough to pass as arguments. */
const CHUNK = 8192;

/** `piped into sh`, when a pipe after the download leads into something that runs what it reads. */
function pipedInto(command: string): string | undefined {
  const download = DOWNLOADER.exec(command);
  if (download === null) return undefined;
  for (const stage of pipedStages(command, download.index)) {
    const cut = stage.search(/[;&<>]|\s\d>/);
    const run = cut === -1 ? stage : stage.slice(0, cut);
    const words = run.slice(programStart(run)).matchAll(/[^\s)]+/g);
    const program = words.next();
    const name = program.done ? "" : unquoted(program.value[0]).replace(/^.*\//, "");
    if (/^(?:iex|Invoke-Expression)$/i.test(name)) return `piped into ${name}`;
    // `source /dev/stdin`, `. /dev/stdin`: the shell running the pipeline runs the download itself.
    if (/^(?:source|\.)$/.test(name) && STDIN_FILE.test(unquoted(words.next().value?.[0] ?? ""))) {
      return `piped into ${name}`;
    }
    if (RUNTIME.test(name) && runsStandardInput(words)) return `piped into ${name}`;
    const gives = SHELL.test(name) ? SHELL_PROGRAM : INTERPRETER.test(name) ? INTERPRETER_PROGRAM : undefined;
    if (gives !== undefined && readsProgram(words, gives)) return `piped into ${name}`;
  }
  return undefined;
}

/** The stages of the pipeline in `command` that `|`s after `from` feed, one at a time. */
function* pipedStages(command: string, from: number): Generator<string> {
  const pipes = /(?<!\|)\|(?![|&])/g;
  pipes.lastIndex = from;
  for (let pipe = pipes.exec(command); pipe !== null; ) {
    const start = pipe.index + 1;
    pipe = pipes.exec(command);
    yield command.slice(start, pipe === null ? command.length : pipe.index);
  }
}

/** Whether `deno` or `bun` given `args` runs standard input: `deno run -`, `bun -`, options between. */
function runsStandardInput(args: Iterable<RegExpMatchArray>): boolean {
  for (const [word] of args) {
    const arg = unquoted(word);
    if (arg === "-" || STDIN_FILE.test(arg)) return true;
    if (arg !== "run" && !arg.startsWith("-")) return false;
  }
  return false;
}

/**
 * Whether a shell or interpreter given `args` runs standard input: it does unless a flag gives it a
 * program (`-c`, `-m json.tool`) or an argument names a script file; `-`, `-s` and `--` say "stdin, and
 * what follows are its arguments".
 */
function readsProgram(args: Iterable<RegExpMatchArray>, givesProgram: RegExp): boolean {
  for (const [word] of args) {
    const arg = unquoted(word);
    if (arg === "-" || arg === "-s" || arg === "--" || STDIN_FILE.test(arg)) return true;
    if (givesProgram.test(arg) || !arg.startsWith("-")) return false;
  }
  return true;
}

/**
 * Where the program of a pipeline stage starts: past the variables set for it (`VERSION=1.2 sh`, the
 * shell's own or `env`'s) and the commands that run the command after them, each with its options and
 * their values (`sudo -u root`, `env -i`, `nohup`, `nice -n 5`). A last word always stays, as the program
 * or as what `sudo` runs.
 */
function programStart(stage: string): number {
  /** The options of the runner whose arguments are read, which take a value; undefined outside one. */
  let options: ReadonlySet<string> | undefined;
  for (let word = wordAt(stage, 0); word !== undefined; ) {
    const next = wordAt(stage, word.end);
    if (next === undefined) return word.start;
    const text = stage.slice(word.start, word.end);
    if (options !== undefined && isFlag(text)) {
      const after = options.has(text) ? wordAt(stage, next.end) : next;
      if (after === undefined) return next.start;
      word = after;
      continue;
    }
    if (!isAssignment(text)) {
      options = RUNNERS.get(text);
      if (options === undefined) return word.start;
    }
    word = next;
  }
  return stage.length;
}

/** Commands that run the command given after them, with their options that take a value as the next word. */
const RUNNERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["sudo", new Set(["-u", "-g", "-C", "-D", "-p", "-r", "-t", "-T", "-U", "-R"])],
  ["doas", new Set(["-u", "-C"])],
  ["env", new Set(["-u", "-C"])],
  ["command", new Set()],
  ["exec", new Set(["-a"])],
  ["nohup", new Set()],
  ["time", new Set(["-f", "-o"])],
  ["nice", new Set(["-n"])],
]);

/** The first word (a run of characters other than white space) at or after `from`. */
function wordAt(text: string, from: number): { start: number; end: number } | undefined {
  let start = from;
  while (start < text.length && isSpace(text.charCodeAt(start))) start++;
  if (start === text.length) return undefined;
  let end = start + 1;
  while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
  return { start, end };
}

const isFlag = (word: string) => word.length > 1 && word.startsWith("-");
const isAssignment = (word: string) => /^\w+=/.test(word);

/** `word` without the quotes around it (any number of `"`, `'` and backticks at either end). */
function unquoted(word: string): string {
  const isQuote = (index: number) => word[index] === '"' || word[index] === "'" || word[index] === "`";
  let start = 0;
  let end = word.length;
  while (start < end && isQuote(start)) start++;
  while (end > start && isQuote(end - 1)) end--;
  return word.slice(start, end);
}

/**
 * HTML comments outside code: a rendered SKILL.md does not show them, but a model reads them. Comments
 * shown inside code blocks (fenced or indented) or code spans are examples a reader sees.
 */
export function* htmlCommentHits(text: string): Generator<Hit> {
  if (!text.includes("<!--")) return;
  const lineBreak = lineBreakOf(text);
  for (const { comment } of markdownLines(text)) {
    if (comment === undefined) continue;
    const { open, close } = comment;
    const inside = text.slice(open + 4, close === -1 ? text.length : close);
    const resume = close === -1 ? text.length : text.indexOf(lineBreak, close);
    // The scan goes on at the next line: a directive passes only with no other comment after it.
    const rest = close === -1 ? "" : text.slice(close + 3, resume === -1 ? text.length : resume);
    if (close === -1 || !isToolDirective(inside) || rest.includes("<!--")) {
      yield {
        rule: "html-comment",
        offset: open,
        detail: `hidden from the rendered view: ${JSON.stringify(visible(collapsedStart(inside, 120)))}`,
      };
    }
  }
}

/** A line of a Markdown file as its rendered view places it. */
export interface MarkdownLine {
  readonly start: number;
  /** Where its line break is, or the end of the text; for a comment, those of the line it closes on. */
  readonly end: number;
  /** Shown as code: inside a fenced code block, or an indented one. */
  readonly code: boolean;
  /** Raw HTML: a line of an HTML block, where backticks make no code span. */
  readonly html?: boolean;
  /** Its text starts a paragraph: the line before holds no paragraph text (a link definition may start here). */
  readonly opensParagraph?: boolean;
  /** An HTML comment outside code that opens on it: where, and where its `-->` is (-1 when none is). */
  readonly comment?: { readonly open: number; readonly close: number };
}

/**
 * The lines of a Markdown file, in order, each told code or not, as CommonMark reads its blocks far
 * enough for the audit: fenced code blocks, indented code blocks, HTML comments outside code (the lines
 * a comment spans are one), and, never read as code, what looks like code but renders otherwise. An
 * indented code block starts after a blank line, four columns past the content of the list items,
 * footnotes, admonitions and definitions open around it (`- item`, blank, four spaces: that is the
 * item's text, and a comment there is hidden), and not inside an HTML block that a blank line does not
 * end (`<pre>`, `<script>`, `<style>`, `<textarea>`, `<?`, `<!X`, `<![CDATA[`). Where it cannot tell,
 * a line is not code: what is not code is searched for comments.
 */
export function* markdownLines(text: string): Generator<MarkdownLine> {
  let fence: string | undefined;
  /** The column where the text of the container the fence is in starts. */
  let fenceColumn = 0;
  /** The line before is blank, or there is none. */
  let blankBefore = true;
  /** The last line that is not blank was indented code. */
  let inCode = false;
  /** The last line is text of a paragraph, which a line not indented into its container may continue. */
  let paragraph = false;
  /** The content columns of the list items, quotes, footnotes and the like open, innermost last. */
  const containers: number[] = [];
  /** Which of `containers` are quotes, by index: a quote goes on only on a line with its `>` (or lazily). */
  const quotes: number[] = [];
  /** Which of `containers` a line opened that goes on with a paragraph: no block, so text ends none. */
  const guesses: number[] = [];
  /** The quotes open around the fence: a line with fewer `>` ends them, and the fence in them. */
  let fenceQuotes = 0;
  /** Closes the containers from the `kept`-th on. */
  const closeFrom = (kept: number) => {
    if (kept >= containers.length) return;
    containers.length = kept;
    while ((quotes.at(-1) ?? -1) >= kept) quotes.pop();
    while ((guesses.at(-1) ?? -1) >= kept) guesses.pop();
  };
  /** Closes the containers whose text starts past `column`. */
  const closePast = (column: number) => {
    let kept = containers.length;
    while (kept > 0 && (containers[kept - 1] ?? 0) > column) kept--;
    closeFrom(kept);
  };
  const openContainer = (column: number, quote: boolean, guess = false) => {
    if (column <= (containers.at(-1) ?? 0)) return;
    if (quote) quotes.push(containers.length);
    if (guess) guesses.push(containers.length);
    containers.push(column);
  };
  /** The index in `containers` of an empty list item the line before opened (`- `), or -1. */
  let emptyItem = -1;
  /** What ends the HTML block open. */
  let htmlEnd: HtmlEnd | undefined;
  /** The quotes open around the HTML block open, and the text column of the container it is in. */
  let htmlQuotes = 0;
  let htmlColumn = 0;
  /** The HTML block open is a tag alone under a paragraph, which may be the paragraph's text. */
  let htmlMaybeText = false;
  /** The HTML block open was read inside one that a blank line ends, which goes on after it. */
  let nested = false;
  /** Where the paragraph that the last line holds text of starts, and the text column of its container. */
  let paragraphStart = 0;
  let paragraphColumn = 0;
  /** The paragraph read last as a whole, for the comments outside its code spans. */
  let reading: ParagraphReading | undefined;
  /** The start of the line after the last comment's end. */
  let afterComment = 0;
  const lineBreak = lineBreakOf(text);
  let offset = 0;
  while (offset < text.length) {
    const newline = text.indexOf(lineBreak, offset);
    const end = newline === -1 ? text.length : newline;
    const written = text.slice(offset, end);
    const start = offset;
    offset = end + 1;
    const emptyBefore = emptyItem;
    emptyItem = -1;
    // The line with its quotes' markers read as white space, and its indentation past them as it is
    // in the innermost quote: a quote's text starts two columns past its `>`, whatever follows that.
    // In code or raw HTML, a `>` past the quotes open is text; elsewhere a few more are read, as items.
    // Under a paragraph, a `>` indented four columns past the text of the containers its line is surely
    // in goes on with the paragraph.
    const inRaw = fence !== undefined || htmlEnd !== undefined;
    const surely = paragraph ? guesses : [];
    let read = quotedLine(
      written,
      containers,
      quotes,
      quotes.length + (inRaw ? 0 : MAX_ITEMS_ON_A_LINE),
      surely,
    );
    // A fence in a list item ends with the item: at a line indented less than the item's text; in a
    // quote, at a line without as many `>`. The line is then read again, out of code.
    if (
      fence !== undefined &&
      ((!read.blank && read.indent < fenceColumn) || read.markers.matched < fenceQuotes)
    ) {
      fence = undefined;
      if (htmlEnd === undefined) {
        read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
      }
    }
    // An HTML block in a list item ends with the item, at a line indented less than the item's text: no
    // line goes on with an HTML block lazily. The line is then read again, out of raw HTML.
    if (htmlEnd !== undefined && fence === undefined && !read.blank && read.indent < htmlColumn) {
      htmlEnd = undefined;
      nested = false;
      read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
    }
    const { markers, line, width, indent, blank } = read;
    if (fence !== undefined) {
      const marker = fenceMarkerIn(line, fenceColumn);
      // A closing fence has nothing after its run but white space: "`````word" is code.
      const closes =
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        line.slice(line.indexOf(marker) + marker.length).trim() === "";
      if (closes) fence = undefined;
      yield { start, end, code: !closes };
      blankBefore = false;
      paragraph = false;
      continue;
    }
    // A line with fewer `>` than the quotes open ends the others, unless it goes on with a paragraph in
    // them (lazily): it opens no block, as a line indented four columns past them opens none.
    let lazily = false;
    if (markers.matched < quotes.length) {
      const inner = quotes[markers.matched] ?? containers.length;
      lazily =
        paragraph &&
        !blank &&
        markers.count === markers.matched &&
        (indent >= innermostAt(containers, indent, inner) + 4 ||
          !endsParagraph(line.slice(width), true, true));
      if (!lazily) {
        closeFrom(inner);
        paragraph = false;
        // An HTML block in a quote ends with it.
        if (markers.matched < htmlQuotes) htmlEnd = undefined;
      }
    }
    // A `>` past the quotes open opens one: it ends the containers it is not indented into.
    if (markers.count > markers.matched) {
      const added = markers.columns.slice(markers.matched);
      closePast((added[0] ?? 2) - 2);
      for (const column of added) openContainer(column, true);
      paragraph = false;
    }
    if (blank) {
      // A list item begins with at most one blank line: an empty item (`- `) ends at the blank after it.
      // The line is blank in the item only when it holds no `>` of a quote in it.
      if (emptyBefore !== -1 && markers.count <= countBelow(quotes, emptyBefore)) {
        closeFrom(emptyBefore);
      }
      // The items a line going on with a paragraph seemed to open are none: nothing goes on lazily past a
      // blank line, so they hold no line after it.
      closeFrom(guesses[0] ?? containers.length);
      blankBefore = true;
      paragraph = false;
      if (htmlEnd === BLANK_LINE) htmlEnd = undefined;
      yield { start, end, code: false };
      continue;
    }
    if (blankBefore) closePast(indent);
    const codeColumn = (containers.at(-1) ?? 0) + 4;
    // Indented code may follow any block but a paragraph, which such a line continues.
    if (htmlEnd === undefined && indent >= codeColumn && (blankBefore || inCode || !paragraph)) {
      blankBefore = false;
      inCode = true;
      paragraph = false;
      yield { start, end, code: true };
      continue;
    }
    blankBefore = false;
    inCode = false;
    const content = line.slice(width);
    // A line not indented into the innermost container ends it, unless it goes on with a paragraph there
    // (lazily): not after a heading, nor when it starts a heading, a thematic break or a quote, which no
    // paragraph holds. Four columns past the text of the container left, the line is that container's
    // indented code, after a block that is no paragraph (under one it is the paragraph's text, and ends
    // nothing), unless the containers open are a guess (see `guesses`).
    const lazy = indent < (containers.at(-1) ?? 0);
    if (htmlEnd === undefined && lazy && (!paragraph || interruptsParagraph(content))) {
      let kept = containers.length;
      while (kept > 0 && (containers[kept - 1] ?? 0) > indent) kept--;
      if (indent < (containers[kept - 1] ?? 0) + 4) closeFrom(kept);
      else if (!paragraph && guesses.length === 0) {
        closeFrom(kept);
        inCode = true;
        yield { start, end, code: true };
        continue;
      }
    }
    // A line of an HTML block is raw HTML: it opens no container. Read in one that may be text, though (a
    // tag alone under a paragraph, see isTagAlone): there more containers only ask more of indented code.
    const container: OpenedContainers | undefined =
      htmlEnd !== undefined && !htmlMaybeText ? undefined : containerOpened(content, indent);
    // Whether the line opens a list item for sure: not in text that goes on (a paragraph goes on with a
    // line indented four columns past its container, or one an empty item or a number but 1 cannot end,
    // unless the line is not indented into the innermost container surely open: then the paragraph is
    // not the line's container, and an item opens after that one, whatever its marker).
    const surelyIn = containers[(guesses[0] ?? containers.length) - 1] ?? 0;
    const opensItem: boolean =
      container?.listItem === true &&
      indent - innermostAt(containers, indent) < 4 &&
      (!paragraph || container.interrupts || indent < surelyIn);
    if (container !== undefined) {
      // A list item the line opens ends the items it is not indented into (a line going on with a paragraph
      // ends none, whatever it looks like). The extensions' containers are text to CommonMark, which ends
      // nothing: they only ask more of indented code.
      if (container.listItem && opensItem) closePast(indent);
      // A quote opens only with an item the line opens for sure: one that a line without its `>` ends is
      // no safe guess (in raw HTML, or in text that goes on, a `>` is text).
      for (const { column, quote } of container.columns) {
        if (!quote || (opensItem && htmlEnd === undefined))
          openContainer(column, quote, container.listItem && !opensItem);
      }
      if (opensItem && container.empty && containers.at(-1) === container.columns.at(-1)?.column) {
        emptyItem = containers.length - 1;
      }
    }
    // Indented as code but not code: it goes on with the paragraph before it, and opens no block. So
    // does a line of a paragraph not indented into the innermost container, but four columns past the
    // text of the one it is surely in: no block opens there.
    const continuation: boolean =
      htmlEnd === undefined &&
      (indent >= codeColumn ||
        lazily ||
        (paragraph && indent >= innermostAt(containers, indent, guesses[0] ?? containers.length) + 4));
    // An item or a quote opened on the line whose text is indented code (`- >     x`): no paragraph, and
    // its backticks open no span that a later line closes.
    if (htmlEnd === undefined && !continuation && opensItem && container?.code === true) {
      inCode = true;
      paragraph = false;
      yield { start, end, code: true };
      continue;
    }
    let html = htmlEnd !== undefined;
    if (htmlEnd === BLANK_LINE) {
      // A line read as a tag alone may be text that a <pre> block interrupts: read both blocks.
      const block = htmlBlock(content);
      if (block !== undefined && block.end !== BLANK_LINE && !block.closed) {
        htmlEnd = block.end;
        nested = true;
      }
    } else if (htmlEnd !== undefined) {
      if (htmlEnd.test(content)) {
        htmlEnd = nested ? BLANK_LINE : undefined;
        nested = false;
      }
    } else if (!continuation) {
      // A fence opens on a list item's own line too (`- ```), in that item; else in the innermost
      // container the line is indented into, up to three columns past its text.
      const inItem = opensItem ? fenceMarker(content.slice(container?.text ?? 0)) : undefined;
      const base = inItem !== undefined ? 0 : innermostAt(containers, indent);
      const marker = inItem ?? fenceMarkerIn(line, base);
      if (marker !== undefined) {
        fence = marker;
        // A fence continues no paragraph: the items it is not indented into end here.
        if (inItem === undefined) closePast(base);
        fenceColumn = containers.at(-1) ?? 0;
        fenceQuotes = quotes.length;
        paragraph = false;
        yield { start, end, code: false };
        continue;
      }
      // An HTML block opens on a list item's own line too (`- <div>`), in that item.
      const inner = opensItem ? content.slice(container?.text ?? 0) : content;
      const block = htmlBlock(inner);
      html = block !== undefined;
      htmlEnd = block === undefined || block.closed ? undefined : block.end;
      htmlQuotes = quotes.length;
      // HTML that may interrupt a paragraph continues none: the items it is not indented into end here.
      if (!opensItem && (block?.interrupts === true || content.startsWith("<!--"))) {
        closePast(indent);
      }
      // A tag alone under a paragraph may be its text, which goes on lazily: no line ends it so.
      htmlMaybeText = paragraph && !opensItem && block?.interrupts !== true;
      htmlColumn = htmlMaybeText ? 0 : (containers.at(-1) ?? 0);
    }
    const continues = paragraph;
    // A continuation line is text of the paragraph whatever it starts with (`#`, `>`): it opens no block.
    // So is a list item's marker that cannot end the paragraph (`1.` alone, `2) x`): it opens no item.
    const goesOn: boolean =
      continuation ||
      (paragraph && container?.listItem === true && !opensItem && !SETEXT_UNDERLINE.test(content));
    // The text of the items and quotes the line opens, read as they read it (`+ >  -   ` holds nothing),
    // holds a paragraph or not; a comment opens an HTML block there too (`- > <!-- x -->`).
    const itemText: string | undefined = opensItem ? content.slice(container?.text ?? 0) : undefined;
    const holds: boolean =
      itemText === undefined
        ? !content.startsWith("<!--") && holdsParagraph(content, paragraph && !lazy)
        : !itemText.startsWith("<!--") && holdsParagraph(itemText, false);
    paragraph = goesOn || (!html && holds);
    if (paragraph && !continues) {
      paragraphStart = start;
      paragraphColumn = containers.at(-1) ?? 0;
    }
    let open = -1;
    if (html) {
      // An HTML block is raw HTML: backticks there make no code span, and a comment is hidden.
      const at = line.indexOf("<!--");
      open = at === -1 ? -1 : start + at;
    } else if (!line.includes("<!--")) {
      open = -1;
    } else if (paragraph) {
      // A code span may open on an earlier line of the paragraph, or close on a later one: read it whole.
      // Each reading starts where the last one or the last comment ended, or later: no line is read twice.
      while (reading === undefined || reading.end <= start) {
        const from = Math.max(paragraphStart, reading?.end ?? 0, afterComment);
        reading = readParagraph(text, from, lineBreak, paragraphColumn, { containers, quotes, guesses });
      }
      open = reading.commentFrom(start, end);
    } else {
      open = commentsOutsideSpans(text, start, end).next().value ?? -1;
    }
    const opensParagraph = paragraph && !continues;
    if (open === -1) {
      yield { start, end, code: false, html, opensParagraph };
      continue;
    }
    const close = text.indexOf("-->", open + 4);
    const resume = close === -1 ? -1 : text.indexOf(lineBreak, close);
    const last = resume === -1 ? text.length : resume;
    yield { start, end: last, code: false, html, opensParagraph, comment: { open, close } };
    // The lines the comment spans are lines of the HTML block open too: one of them may end it.
    if (htmlEnd instanceof RegExp && htmlEnd.test(text.slice(start, last))) {
      htmlEnd = nested ? BLANK_LINE : undefined;
      nested = false;
    }
    offset = last + 1;
    afterComment = offset;
  }
}

/**
 * `line` read past its quotes' markers (see {@link quoteMarkers}): its indentation as the containers'
 * columns count it, its white space's characters, and whether it is blank.
 */
function quotedLine(
  written: string,
  containers: readonly number[],
  quotes: readonly number[],
  most: number,
  guesses: readonly number[],
): {
  markers: ReturnType<typeof quoteMarkers>;
  line: string;
  width: number;
  indent: number;
  blank: boolean;
} {
  const markers = quoteMarkers(written, containers, quotes, most, guesses);
  const { line } = markers;
  const { indent: columns, width } = indentation(line);
  const textColumn = markers.columns.at(-1);
  const indent = textColumn === undefined ? columns : textColumn + Math.max(0, columns - markers.textAt);
  const blank = width === line.length || (width === line.length - 1 && line.endsWith("\r"));
  return { markers, line, width, indent, blank };
}

/**
 * The `>` markers that start `line`, each a quote's (at most three columns past the text of the container
 * it is in), at most `most` of them: how many are those of the open `quotes` (indexes of `containers`),
 * each indented into the containers around its quote; the line with them read as white space; the text
 * column of each quote (two columns past its `>`, or that of the open quote it is); and where the text of
 * the last starts as written.
 */
function quoteMarkers(
  line: string,
  containers: readonly number[],
  quotes: readonly number[],
  most: number,
  guesses: readonly number[],
): { count: number; matched: number; line: string; columns: number[]; textAt: number } {
  const columns: number[] = [];
  let matched = 0;
  let column = 0;
  /** The column of the last marker as written. */
  let previous = -1;
  let runEnd = 0;
  for (let at = 0; at < line.length && columns.length < most; at++) {
    const code = line.charCodeAt(at);
    if (code === 0x20) column++;
    else if (code === 0x09) column += 4 - (column % 4);
    else if (code !== 0x3e) break;
    else {
      const last = columns.at(-1);
      // The marker's column as the containers' columns count it (`>>`: at the outer quote's text).
      const read = last === undefined ? column : last + Math.max(0, column - previous - 2);
      const open = matched === columns.length ? quotes[matched] : undefined;
      if (
        open !== undefined &&
        read >= (containers[open - 1] ?? 0) &&
        read < (containers[open - 1] ?? 0) + 4
      ) {
        matched++;
        columns.push(containers[open] ?? read + 2);
      } else {
        // A first new one is in the containers its line is indented into, short of the quotes it is not in.
        const sure = Math.min(quotes[matched] ?? containers.length, guesses[0] ?? containers.length);
        const around = last ?? innermostAt(containers, read, sure);
        if (read - around > 3) break;
        columns.push(read + 2);
      }
      previous = column;
      column++;
      runEnd = at + 1;
    }
  }
  if (columns.length === 0) return { count: 0, matched, line, columns, textAt: 0 };
  const read = `${line.slice(0, runEnd).replaceAll(">", " ")}${line.slice(runEnd)}`;
  return { count: columns.length, matched, line: read, columns, textAt: previous + 2 };
}

/** The columns of white space that start `line` (a tab to the next multiple of four), and its characters. */
function indentation(line: string): { indent: number; width: number } {
  let indent = 0;
  let width = 0;
  for (; width < line.length; width++) {
    const code = line.charCodeAt(width);
    if (code === 0x20) indent++;
    else if (code === 0x09) indent += 4 - (indent % 4);
    else break;
  }
  return { indent, width };
}

/** A list item's marker, a footnote's label, an admonition or a definition, at the start of a line's content. */
const BULLET = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/;
/**
 * Whether a line's content starts what ends a paragraph and cannot continue one lazily: an ATX heading, a
 * thematic break (also `---`, a setext underline only under a paragraph of its own container) or a quote.
 */
function interruptsParagraph(content: string): boolean {
  return ATX_HEADING.test(content) || content.startsWith(">") || isThematicBreak(content);
}
/**
 * Where the list item markers and quote markers that start a line's content end, each with the white space
 * after it: what `^(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|(?=\r?$))|>[ \t]?)*` matches, read forward (that
 * expression overflowed the stack on a line of millions of markers). With `texts`, where the text of each
 * container they open starts is added to it, in order (one character past an item's marker when indented
 * code follows it), for the first few: more than MAX_ITEMS_ON_A_LINE there means more are left out.
 */
export function containerMarkersEnd(content: string, texts?: number[]): number {
  let at = 0;
  for (;;) {
    const code = content.charCodeAt(at);
    if (code === 0x3e) {
      at += content[at + 1] === " " || content[at + 1] === "\t" ? 2 : 1;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) texts.push(at);
      continue;
    }
    let marker = code === 0x2d || code === 0x2b || code === 0x2a ? at + 1 : at;
    if (marker === at) {
      while (marker - at < 9 && isDigit(content.charCodeAt(marker))) marker++;
      const delimiter = content.charCodeAt(marker);
      marker = marker > at && (delimiter === 0x2e || delimiter === 0x29) ? marker + 1 : at;
    }
    if (marker === at) return at;
    let after = marker;
    while (content[after] === " " || content[after] === "\t") after++;
    if (after > marker) {
      at = after;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) {
        texts.push(after - marker > 4 ? marker + 1 : after);
      }
    } else
      return marker === content.length || (content[marker] === "\r" && marker + 1 === content.length)
        ? marker
        : at;
  }
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
const ATX_HEADING = /^#{1,6}(?:[ \t]|\r?$)/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*\r?$/;

/**
 * Whether a line whose content (without its indentation) is `content` leaves a paragraph open: text, not
 * a heading (ATX, or setext when `underParagraph`, the line before being text of the same container), a
 * thematic break or a container holding nothing yet.
 */
function holdsParagraph(content: string, underParagraph: boolean): boolean {
  const inner = content.slice(containerMarkersEnd(content));
  if (inner === "" || inner === "\r" || ATX_HEADING.test(inner) || isThematicBreak(inner)) return false;
  return !(underParagraph && inner === content && SETEXT_UNDERLINE.test(inner));
}

/**
 * `* * *`, `---`, `_ _ _`: a thematic break, not a list item. What `^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|
 * (?:_[ \t]*){3,})\r?$` matches, read forward (that expression overflowed the stack on a line of millions
 * of `- `).
 */
function isThematicBreak(content: string): boolean {
  const mark = content.charCodeAt(0);
  if (mark !== 0x2a && mark !== 0x2d && mark !== 0x5f) return false;
  const end = content.endsWith("\r") ? content.length - 1 : content.length;
  let marks = 0;
  for (let at = 0; at < end; at++) {
    const code = content.charCodeAt(at);
    if (code === mark) marks++;
    else if (code !== 0x20 && code !== 0x09) return false;
  }
  return marks >= 3;
}
const FOUR_COLUMN_CONTAINER = /^(?:\[\^[^\]\s]{1,100}\]:|(?:!!!|\?\?\?\+?|===|:)[ \t])/;

/**
 * The container that `content` (a line without its `indent` columns of white space) opens, if any, and
 * the column where its text starts: a list item's after its marker and the one to four spaces after
 * that; a footnote's, an admonition's or a definition's (Markdown extensions) four columns in. `code`
 * when the text after the last item's or quote's marker is indented code (`-     x`, `- >     x`).
 */
function containerOpened(content: string, indent: number): OpenedContainers | undefined {
  const columns: OpenedContainer[] = [];
  // What a list item needs to end a paragraph: a bullet or the number 1, and text after it.
  const interrupts = /^(?:[-+*]|0*1[.)])[ \t]+\S/.test(content);
  let column = indent;
  let at = 0;
  // A list item may open another on its own line (`- 1. x`), which opens another…: a few are read.
  while (columns.length < MAX_ITEMS_ON_A_LINE) {
    // A quote in the item (`- > x`): its text two columns past its `>`, and a marker may follow it.
    if (columns.length > 0 && content.charCodeAt(at) === 0x3e) {
      column += 2;
      columns.push({ column, quote: true });
      // Five columns of white space read: the marker's own, then four that make indented code.
      const { indent: gap, width } = indentation(content.slice(at + 1, at + 6));
      at += 1 + width;
      if (gap > 4 && !isBlankFrom(content, at)) {
        return { columns, listItem: true, interrupts, text: content.length, code: true, empty: false };
      }
      const next = content.charCodeAt(at);
      BULLET_AT.lastIndex = at;
      if (gap > 4 || (next !== 0x3e && !BULLET_AT.test(content))) break;
      column += Math.max(0, gap - 1);
      continue;
    }
    BULLET_AT.lastIndex = at;
    const bullet = BULLET_AT.exec(content);
    if (bullet === null || isThematicBreak(at === 0 ? content : content.slice(at))) break;
    const marker = bullet[0].length;
    const { indent: gap, width } = indentation(content.slice(at + marker, at + marker + 5));
    // Nothing after the marker, or indented code after it: the item's text is one column past it.
    if (gap === 0 || gap > 4 || isBlankFrom(content, at + marker + width)) {
      columns.push({ column: column + marker + 1, quote: false });
      const empty = isBlankFrom(content, at + marker + width);
      return { columns, listItem: true, interrupts, text: content.length, code: gap > 4 && !empty, empty };
    }
    column += marker + gap;
    at += marker + width;
    columns.push({ column, quote: false });
  }
  if (columns.length > 0) return { columns, listItem: true, interrupts, text: at, code: false, empty: false };
  if (!FOUR_COLUMN_CONTAINER.test(content)) return undefined;
  const opened = [{ column: indent + 4, quote: false }];
  return { columns: opened, listItem: false, interrupts: false, text: 0, code: false, empty: false };
}

/** Whether `content` holds nothing but spaces and tabs from `from` on (and the `\r` of its line break). */
function isBlankFrom(content: string, from: number): boolean {
  for (let at = from; at < content.length; at++) {
    const code = content.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d) return false;
  }
  return true;
}

/** The containers a line opens (see {@link containerOpened}). */
interface OpenedContainers {
  readonly columns: readonly OpenedContainer[];
  /** They are list items, and quotes in them; not an extension's container. */
  readonly listItem: boolean;
  /** The first is a list item that may end a paragraph. */
  readonly interrupts: boolean;
  /** Where the text of the last starts in the line's content: its end when there is none, or it is code. */
  readonly text: number;
  /** The text of the last is indented code. */
  readonly code: boolean;
  /** The last is a list item with nothing after its marker (`- `). */
  readonly empty: boolean;
}

/** A container a line opens: the column where its text starts, and whether it is a quote. */
interface OpenedContainer {
  readonly column: number;
  readonly quote: boolean;
}

/**
 * List items, and quotes past those open, read on one line: more are text, so a line's cost stays fixed
 * (see containerOpened) and a line of `>` opens no more than a few.
 */
const MAX_ITEMS_ON_A_LINE = 8;
const BULLET_AT = /(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/y;

/**
 * The text column of the innermost of `containers` (content columns, rising, innermost last) that a line
 * indented `indent` columns is in, or 0: found by halving, as a deep list may leave many open.
 */
function innermostAt(containers: readonly number[], indent: number, count = containers.length): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((containers[middle] ?? 0) <= indent) low = middle + 1;
    else high = middle;
  }
  return containers[low - 1] ?? 0;
}

/** How many of `sorted` (rising) are below `value`: found by halving, as many quotes may be open. */
function countBelow(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? 0) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * {@link fenceMarker} of a line in a container whose text starts at `column`: its first `column`
 * columns of white space are the container's, and up to three more may come before the fence.
 */
function fenceMarkerIn(line: string, column: number): string | undefined {
  if (column === 0) return fenceMarker(line);
  let at = 0;
  for (let width = 0; width < column && at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (code === 0x20) width++;
    else if (code === 0x09) width += 4 - (width % 4);
    else break;
  }
  return fenceMarker(line.slice(at));
}

/** What ends an HTML block: a line holding a text, or a blank line. */
type HtmlEnd = RegExp | typeof BLANK_LINE;
const BLANK_LINE = "blank line";
/** The start conditions of the HTML blocks that a blank line does not end, each with its end. */
const RAW_END = /<\/(?:script|pre|style|textarea)>/i;
const HTML_BLOCKS: readonly (readonly [RegExp, RegExp])[] = [
  [/^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, RAW_END],
  [/^<\?/, /\?>/],
  [/^<![a-z]/i, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];
/** An HTML block that a blank line ends: a block-level tag opened or closed at the start of a line. */
const BLOCK_TAG =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s>]|\/>|$)/i;
/** One attribute of a tag, and what may end the tag, read from where the last match ended. */
const ATTRIBUTE = /\s+[a-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?/iy;
const TAG_NAME = /[a-z][a-z0-9-]*/iy;
const OPEN_TAG_END = /\s*\/?>[ \t\r]*$/y;
const CLOSE_TAG_END = /\s*>[ \t\r]*$/y;

/**
 * Whether `content` is one open or closing tag and nothing else (`<img src=x>`, `</span>`), which
 * starts an HTML block that a blank line ends (CommonMark's start condition 7; that such a tag cannot
 * interrupt a paragraph is not looked at, so a line may be read as HTML that renders as text: it is
 * searched for comments the more closely). Read attribute by attribute, each from where the last
 * ended, so that the line is read once.
 */
function isTagAlone(content: string): boolean {
  const closing = content.startsWith("</");
  if (!closing && !content.startsWith("<")) return false;
  TAG_NAME.lastIndex = closing ? 2 : 1;
  if (!TAG_NAME.test(content)) return false;
  let at = TAG_NAME.lastIndex;
  if (!closing) {
    ATTRIBUTE.lastIndex = at;
    while (ATTRIBUTE.test(content)) {
      at = ATTRIBUTE.lastIndex;
    }
  }
  const tagEnd = closing ? CLOSE_TAG_END : OPEN_TAG_END;
  tagEnd.lastIndex = at;
  return tagEnd.test(content);
}

/**
 * The HTML block that `content` (a line without its indentation) opens, if any: what ends it, whether
 * the line itself closes it already, and whether it may interrupt a paragraph (all but a lone tag).
 */
function htmlBlock(content: string): { end: HtmlEnd; closed: boolean; interrupts: boolean } | undefined {
  const block = HTML_BLOCKS.find(([opens]) => opens.test(content));
  if (block === undefined) {
    if (BLOCK_TAG.test(content)) return { end: BLANK_LINE, closed: false, interrupts: true };
    return isTagAlone(content) ? { end: BLANK_LINE, closed: false, interrupts: false } : undefined;
  }
  const [opens, end] = block;
  const opening = opens.exec(content)?.[0].length ?? 0;
  return { end, closed: end.test(content.slice(opening)), interrupts: true };
}

/**
 * Comments that tell a Markdown tool what to do, written whole: linters (`markdownlint-disable MD013`),
 * formatters (`prettier-ignore`), tables of contents (`toc`, `omit in toc`), prose linters and spell
 * checkers turned off and on, excerpt breaks (`more`, `truncate`). A team's own skills, linted and
 * formatted, hold them in every file. Their words are fixed, and markdownlint's take only rule numbers,
 * so they carry no text of anyone's choosing; a directive that takes free text (`cspell:ignore`,
 * `markdownlint-configure-file`) is not one of them.
 */
const TOOL_DIRECTIVES = new Set([
  "prettier-ignore",
  "prettier-ignore-start",
  "prettier-ignore-end",
  "toc",
  "/toc",
  "tocstop",
  "omit in toc",
  "omit from toc",
  "vale off",
  "vale on",
  "textlint-disable",
  "textlint-enable",
  "cspell:disable",
  "cspell:enable",
  "cspell:disable-next-line",
  "more",
  "truncate",
]);
/** markdownlint's inline directives, each followed by the rule numbers it applies to, or none (all). */
const MARKDOWNLINT_DIRECTIVES = new Set([
  "markdownlint-disable",
  "markdownlint-enable",
  "markdownlint-disable-line",
  "markdownlint-disable-next-line",
  "markdownlint-disable-file",
  "markdownlint-enable-file",
  "markdownlint-capture",
  "markdownlint-restore",
]);
const MARKDOWNLINT_RULE = /^md\d{3}$/;
/** Longer than any directive above with a dozen rule numbers: a longer comment is not read as one. */
const LONGEST_DIRECTIVE = 160;

/** Whether the text of a comment is one of the tool directives above, and nothing else. */
export function isToolDirective(inside: string): boolean {
  if (inside.length > LONGEST_DIRECTIVE) return false;
  const words = inside.trim().toLowerCase().split(/\s+/);
  if (TOOL_DIRECTIVES.has(words.join(" "))) return true;
  const [directive = "", ...rules] = words;
  return MARKDOWNLINT_DIRECTIVES.has(directive) && rules.every((rule) => MARKDOWNLINT_RULE.test(rule));
}

/**
 * The first `length` characters of `text` with its white space collapsed to single spaces and trimmed,
 * and an ellipsis when there are more: `excerpt(text.replace(/\s+/g, " ").trim(), length)`, reading only
 * as far as it keeps (an unclosed comment runs to the end of the file).
 */
export function collapsedStart(text: string, length: number): string {
  let kept = "";
  let count = 0;
  let space = false;
  for (const character of text) {
    if (character.length === 1 && isSpace(character.charCodeAt(0))) {
      if (count > 0) space = true;
      continue;
    }
    for (const next of space ? [" ", character] : [character]) {
      if (count === length) return `${kept}…`;
      kept += next;
      count++;
    }
    space = false;
  }
  return kept;
}

/**
 * The run of three or more backticks or tildes that opens or closes a fenced code block, after at most
 * three spaces (what `^\s{0,3}(`{3,}|~{3,})` captures, without its backtracking stack on a long run).
 * A run of backticks with a backtick after it on the line is no fence but code spans in a paragraph
 * (CommonMark: a backtick fence's info string holds none), so the next line is not code.
 */
export function fenceMarker(line: string): string | undefined {
  let start = 0;
  while (start < 3 && isSpace(line.charCodeAt(start))) start++;
  const mark = line[start];
  if (mark !== "`" && mark !== "~") return undefined;
  let end = start;
  while (line[end] === mark) end++;
  if (mark === "`" && line.includes("`", end)) return undefined;
  return end - start >= 3 ? line.slice(start, end) : undefined;
}

/** A paragraph read as a whole: where it ends, and the comments outside its code spans, asked line by line. */
interface ParagraphReading {
  /** Where the line after the paragraph starts, or the text's length. */
  readonly end: number;
  /** The first comment outside code that opens at or after `from` and before `to`, or -1; `from` only grows. */
  readonly commentFrom: (from: number, to: number) => number;
}

/** The paragraph whose first line starts at `from`, read for the comments outside its code spans. */
function readParagraph(
  text: string,
  from: number,
  lineBreak: string,
  column: number,
  open: OpenContainers,
): ParagraphReading {
  const end = paragraphEnd(text, from, lineBreak, column, open);
  const opens = [...commentsOutsideSpans(text, from, end)];
  let next = 0;
  return {
    end,
    commentFrom: (start, to) => {
      while ((opens[next] ?? Number.POSITIVE_INFINITY) < start) next++;
      const open = opens[next] ?? -1;
      return open < to ? open : -1;
    },
  };
}

/**
 * The code spans of the paragraph whose first line starts at `from` (see {@link paragraphEnd}), read whole
 * as the html-comment rule reads it, and where the paragraph ends: a span may open on one of its lines and
 * close on another, and the backticks in a comment open none.
 */
export function paragraphCodeSpans(
  text: string,
  from: number,
  lineBreak: string,
): { readonly end: number; readonly spans: readonly { readonly start: number; readonly end: number }[] } {
  const end = paragraphEnd(text, from, lineBreak);
  const spans: { start: number; end: number }[] = [];
  for (const found of inlineCode(text, from, end, true)) {
    if (!found.comment) spans.push({ start: found.start, end: found.end });
  }
  return { end, spans };
}

/**
 * Where the paragraph whose first line starts at `from` ends, as CommonMark's blocks end it: at a blank
 * line, or a line that starts a heading, a thematic break, a fence, an HTML block that may interrupt a
 * paragraph, a deeper quote or a list item (one numbered other than 1, or empty, only on a line outside
 * the paragraph's list item or quote, where it is the next item; in a quote, any that is not empty). A
 * setext underline ends it too: the heading's text is the lines before. A line indented four columns past
 * the text of the paragraph's container goes on with it, whatever it holds (`column` when the walker
 * knows it and the first line has no markers of its own), as does one without the `>` of a quote opened
 * on the first line's list item, four columns past that `>`.
 */
function paragraphEnd(
  text: string,
  from: number,
  lineBreak: string,
  column?: number,
  open?: OpenContainers,
): number {
  const firstEnd = lineEndOf(text, from, lineBreak);
  const first = quoted(text.slice(from, firstEnd));
  // A line the walker reads as text may open a block in a quote or list item (`> <!--`): no paragraph.
  if (opensBlock(first.content.slice(containerMarkersEnd(first.content)))) return firstEnd;
  const firstLine = text.slice(from, firstEnd);
  /** Where the text of each container the first line's markers open starts, in the trimmed line. */
  const texts: number[] = [];
  const markers = containerMarkersEnd(firstLine.trimStart(), texts);
  const indent = indentation(firstLine);
  // Text indented under no marker of its own (`  text`) is no deeper in its container.
  const textColumn = column !== undefined && markers === 0 ? column : indent.indent + markers;
  // Past a few, the containers are not read apart (see MAX_ITEMS_ON_A_LINE): the innermost's text is.
  const columns = texts.length > MAX_ITEMS_ON_A_LINE ? [] : texts.map((text) => indent.indent + text);
  /** The quotes the paragraph is in: those that start its first line, and those its items open (`- > a`). */
  let depth = first.depth;
  /** The column of the first quote its items open: a line four columns past it opens no block. */
  let quoteColumn = Number.POSITIVE_INFINITY;
  for (let at = indent.width; at < indent.width + markers; at++) {
    if (firstLine.charCodeAt(at) !== 0x3e) continue;
    if (depth === first.depth) quoteColumn = indent.indent + at - indent.width;
    depth++;
  }
  for (let start = firstEnd + 1; start < text.length; ) {
    const end = lineEndOf(text, start, lineBreak);
    const line = text.slice(start, end);
    const { depth: lineDepth, content } = quoted(line);
    const lineIndent = indentation(line).indent;
    // Four columns past the text of the innermost container the line is indented into, it opens no block:
    // read so from the first line's containers, or the line's own indentation (the first line is in a
    // container whose text starts there or before).
    const base =
      lineIndent >= textColumn || lineIndent < indent.indent || columns.length === 0
        ? textColumn
        : Math.max(indent.indent, innermostAt(columns, lineIndent));
    const continued =
      (lineIndent >= base + 4 ||
        (lineDepth <= first.depth && lineIndent >= quoteColumn + 4) ||
        (open !== undefined && pastOpenContainers(line, open) >= 4)) &&
      content !== "" &&
      content !== "\r";
    // Without the `>` of a quote the paragraph is in, or short of the text of the list item it is in, any
    // list item marker opens an item.
    const outside = lineDepth < depth || (depth === 0 && lineIndent < textColumn);
    if (!continued && (lineDepth > first.depth || endsParagraph(content, depth > 0, outside))) {
      return start;
    }
    start = end + 1;
  }
  return text.length;
}

/**
 * The containers the walker has open around a paragraph, as it keeps them (see markdownLines): their text
 * columns, innermost last, and which of them are quotes and which a guess.
 */
interface OpenContainers {
  readonly containers: readonly number[];
  readonly quotes: readonly number[];
  readonly guesses: readonly number[];
}

/**
 * How many columns past the text of the innermost of the `open` containers it is surely in `line` is
 * indented: those whose `>` it has, and the list items it is indented into. Four or more, it opens no
 * block, whatever its text starts with (a lazy line of a paragraph: `> a`, then five spaces and `- b`).
 */
function pastOpenContainers(line: string, { containers, quotes, guesses }: OpenContainers): number {
  const read = quotedLine(line, containers, quotes, quotes.length + 1, guesses);
  // A `>` past the quotes open opens one, which ends the paragraph: the line goes on with nothing.
  if (read.markers.count > read.markers.matched) return 0;
  const bound = Math.min(quotes[read.markers.matched] ?? containers.length, guesses[0] ?? containers.length);
  return read.indent - innermostAt(containers, read.indent, bound);
}

function lineEndOf(text: string, from: number, lineBreak: string): number {
  const end = text.indexOf(lineBreak, from);
  return end === -1 ? text.length : end;
}

/** The `>` markers that start `line`, counted, and the content after them and the white space around them. */
function quoted(line: string): { depth: number; content: string } {
  let at = 0;
  let depth = 0;
  for (;;) {
    while (line[at] === " " || line[at] === "\t") at++;
    if (line[at] !== ">") break;
    depth++;
    at++;
  }
  return { depth, content: line.slice(at) };
}

/**
 * Whether a line whose content (past its quote markers) is `content` ends the paragraph before it; any
 * list item marker does on a line `outside` the paragraph's container (a quote without its `>`, or short
 * of the text of the list item), where it opens no text of the paragraph but an item after its container.
 * `inQuote`, a list item numbered other than 1 ends it too: the quote's items are not told from its text.
 */
function endsParagraph(content: string, inQuote: boolean, outside = false): boolean {
  if (content === "" || content === "\r" || SETEXT_UNDERLINE.test(content) || opensBlock(content))
    return true;
  const bullet = BULLET.exec(content);
  if (bullet === null) return false;
  if (outside) return true;
  // An empty list item interrupts no paragraph.
  if (/^[ \t]*\r?$/.test(content.slice(bullet[0].length))) return false;
  return inQuote || !/^\d/.test(bullet[0]) || /^0*1[.)]$/.test(bullet[0]);
}

/** Whether `content` (a line's, past its containers' markers) opens a block that may interrupt a paragraph, other than a list item. */
function opensBlock(content: string): boolean {
  if (interruptsParagraph(content) || fenceMarker(content) !== undefined) return true;
  return content.startsWith("<!--") || htmlBlock(content)?.interrupts === true;
}

/**
 * Where the first `<!--` of `line` outside its code spans starts, or -1. Code spans are read as CommonMark
 * reads them (see {@link codeSpans}); a `<!--` that a span covers even in part does not count.
 */
export function commentOutsideCode(line: string, steps?: Steps): number {
  return commentsOutsideSpans(line, 0, line.length, steps).next().value ?? -1;
}

/** Where each comment outside a code span opens from `from` to `to` (see {@link inlineCode}). */
export function* commentsOutsideSpans(
  text: string,
  from: number,
  to: number,
  steps?: Steps,
): Generator<number> {
  for (const found of inlineCode(text, from, to, true, steps)) if (found.comment) yield found.start;
}

/**
 * The code spans of `line`, in order, as CommonMark reads them within a line: a run of backticks opens a
 * span that the next run of exactly as many closes; with none, the run is text (``` `` a ` ``` is no span,
 * and a comment after it is hidden). A backslash before a run, itself not escaped, makes its first
 * backtick text, outside a span only.
 */
export function* codeSpans(line: string, steps?: Steps): Generator<{ start: number; end: number }> {
  for (const { start, end } of inlineCode(line, 0, line.length, false, steps)) yield { start, end };
}

/**
 * The code spans from `from` to `to` (a line, or the lines of one paragraph), and with `comments` the
 * HTML comments outside them, in order, as CommonMark reads them left to right: a run of backticks that
 * the next run of exactly as many closes opens a span, whatever lies between (a comment too); a comment
 * that opens first is raw HTML to its `-->`, wherever that is (the end of the text when there is none),
 * and the backticks in it open nothing. Each length of run has its runs in a list that a cursor walks
 * once, and each search goes on from where the last one ended, so the work is linear.
 */
function* inlineCode(
  text: string,
  from: number,
  to: number,
  comments: boolean,
  steps?: Steps,
): Generator<{ start: number; end: number; comment: boolean }> {
  const part = text.slice(from, to);
  const starts: number[] = [];
  const ends: number[] = [];
  const byLength = new Map<number, { readonly runs: number[]; next: number }>();
  for (const run of backtickRuns(part, steps)) {
    const start = run.start + from;
    const end = run.end + from;
    const runs = byLength.get(end - start)?.runs ?? [];
    if (runs.length === 0) byLength.set(end - start, { runs, next: 0 });
    runs.push(starts.length);
    starts.push(start);
    ends.push(end);
  }
  /** The first run after run `after` of `length` backticks, or -1. */
  const closerOf = (length: number, after: number): number => {
    const same = byLength.get(length);
    if (same === undefined) return -1;
    while ((same.runs[same.next] ?? Number.POSITIVE_INFINITY) <= after) same.next++;
    if (steps) steps.count += 1;
    return same.runs[same.next] ?? -1;
  };
  const commentAfter = searchForward((at) => {
    if (!comments) return NOWHERE;
    const found = indexOf(part, "<!--", at - from, steps);
    return found === NOWHERE ? NOWHERE : found + from;
  });
  let at = from;
  for (let run = 0; ; run++) {
    const comment = commentAfter(at);
    if (comment < to && comment < (starts[run] ?? NOWHERE)) {
      const close = indexOf(text, "-->", comment + 4, steps);
      const end = close === NOWHERE ? text.length : close + 3;
      yield { start: comment, end, comment: true };
      at = end;
      while ((starts[run] ?? NOWHERE) < at) run++;
      run--;
      continue;
    }
    if (run >= starts.length) return;
    const end = ends[run] ?? 0;
    let start = starts[run] ?? 0;
    let backslashes = 0;
    while (start - backslashes > at && text.charCodeAt(start - backslashes - 1) === 0x5c) backslashes++;
    if (steps) steps.count += backslashes;
    if (backslashes % 2 === 1) start++;
    if (start === end) continue;
    const closer = closerOf(end - start, run);
    if (closer === -1) continue;
    const spanEnd = ends[closer] ?? 0;
    yield { start, end: spanEnd, comment: false };
    at = spanEnd;
    run = closer;
  }
}

/** The runs of backticks of `line`, in order. */
function* backtickRuns(line: string, steps?: Steps): Generator<{ start: number; end: number }> {
  let start = line.indexOf("`");
  while (start !== -1) {
    let end = start;
    while (line.charCodeAt(end) === 0x60) end++;
    yield { start, end };
    start = line.indexOf("`", end);
  }
  if (steps) steps.count += line.length + 1;
}
