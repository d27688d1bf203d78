import { excerpt, visible } from "../shared/index.js";
import { type Link, linkDefinitions, referenceLinks } from "./references.js";
import type { Hit } from "./rules.js";
import { indexOf, isSpace, matchFrom, NOWHERE, type Steps, searchForward, skipSpaces } from "./scan.js";

/** No host name is longer (RFC 1035): a longer target's host is cut in the finding, not copied whole. */
const MAX_HOST = 253;
/** Link text longer than this is not looked at: an address is shorter, and the bound keeps a link's cost fixed. */
const MAX_SHOWN = 300;

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
 * Markdown links are inline (`[text](url)`, `[text](<url>)`) or name a definition (`[text][label]`,
 * `[text][]`, `[text]` with `[label]: url` elsewhere).
 */
export function* deceptiveLinkHits(text: string): Generator<Hit> {
  if (!text.includes("](") && !text.includes("]:") && !/href/i.test(text)) return;
  const references = referenceLinks(text, linkDefinitions(text), MAX_SHOWN);
  const links = inOrder(inOrder(markdownLinks(text), references), htmlLinks(text));
  // A document links to a few addresses many times: each text, target and pair of hosts is read once
  // (parsing every one with URL was most of the rule's time).
  const shownHostOf = remembered(hostShown);
  const targetHostOf = remembered(hostOf);
  const detailOf = remembered(deceptionDetail);
  for (const { shown, target, offset } of links) {
    if (text[offset - 1] === "!") continue;
    const shownHost = shownHostOf(shown);
    const targetHost = targetHostOf(target);
    if (shownHost === undefined || targetHost === undefined) continue;
    // Hosts hold no space (URL refuses one): the pair's key is unambiguous.
    const detail = detailOf(`${shownHost} ${targetHost}`);
    if (detail !== undefined) yield { rule: "deceptive-link", offset, detail };
  }
}

/** The detail of a link showing the first host of `hosts` and going to the second; undefined for one site. */
function deceptionDetail(hosts: string): string | undefined {
  const space = hosts.indexOf(" ");
  const [shownHost, targetHost] = [hosts.slice(0, space), hosts.slice(space + 1)];
  if (sameSite(shownHost, targetHost)) return undefined;
  return `link text shows ${visible(shownHost)} but the link goes to ${visible(excerpt(targetHost, MAX_HOST))}`;
}

/** How many answers {@link remembered} keeps before it starts anew: a bound on its memory whatever the file. */
const REMEMBERED = 256;

/** `compute`, each answer kept for the same argument, up to {@link REMEMBERED} of them at a time. */
function remembered<Result>(compute: (key: string) => Result): (key: string) => Result {
  // Each answer in an object of its own: an answer may be undefined, which a Map's get cannot tell apart.
  const answers = new Map<string, { readonly answer: Result }>();
  return (key) => {
    const kept = answers.get(key);
    if (kept !== undefined) return kept.answer;
    const answer = compute(key);
    if (answers.size >= REMEMBERED) answers.clear();
    answers.set(key, { answer });
    return answer;
  };
}

/**
 * The Markdown links `[text](http…)` of `text`, with 1 to 300 characters of text on one line, an optional
 * `<…>` around the target and an optional title. They are what the regular expression
 * `\[([^\]\n]{1,300})\]\(\s*<?(https?:\/\/[^\s)>]+)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)` (flags `gi`)
 * finds, which took quadratic time where a target never ends. A `[` tries the first `]` after it, so all
 * the `[`s before one `]` share what follows it, and one target end serves every target running into it.
 */
export function* markdownLinks(text: string, steps?: Steps): Generator<Link> {
  const closeAfter = searchForward((from) => indexOf(text, "]", from, steps));
  const lineEndAfter = searchForward((from) => indexOf(text, "\n", from, steps));
  const targetEndAfter = searchForward((from) => runEnd(text, from, endsMarkdownTarget, steps));
  let destination: { readonly from: number; readonly found: Destination | undefined } | undefined;
  let closing: { readonly from: number; readonly end: number | undefined } | undefined;

  /** The target and link end of a destination starting at `from` (just after `](`), if it is one. */
  const destinationAt = (from: number): Destination | undefined => {
    let start = skipSpaces(text, from, steps);
    if (text[start] === "<") start++;
    const scheme = schemeLength(text, start);
    if (scheme === 0) return undefined;
    const targetEnd = targetEndAfter(start + scheme);
    if (targetEnd === start + scheme) return undefined;
    if (closing?.from !== targetEnd)
      closing = { from: targetEnd, end: destinationEnd(text, targetEnd, steps) };
    return closing.end === undefined ? undefined : { target: text.slice(start, targetEnd), end: closing.end };
  };

  for (let open = indexOf(text, "[", 0, steps); open !== NOWHERE; ) {
    const close = closeAfter(open + 1);
    if (close === NOWHERE) break;
    const length = close - open - 1;
    let found: Destination | undefined;
    if (length >= 1 && length <= MAX_SHOWN && lineEndAfter(open + 1) > close && text[close + 1] === "(") {
      if (destination?.from !== close + 2) destination = { from: close + 2, found: destinationAt(close + 2) };
      found = destination.found;
    }
    if (found) yield { shown: text.slice(open + 1, close), target: found.target, offset: open };
    open = indexOf(text, "[", found ? found.end : open + 1, steps);
  }
}

interface Destination {
  readonly target: string;
  /** Just past the link's `)`. */
  readonly end: number;
}

/**
 * Where a Markdown link whose target ends at `targetEnd` ends: after an optional `>`, an optional title
 * (white space, then `"…"` or `'…'` on one line) and white space, its `)`.
 */
function destinationEnd(text: string, targetEnd: number, steps?: Steps): number | undefined {
  const after = text[targetEnd] === ">" ? targetEnd + 1 : targetEnd;
  const gap = skipSpaces(text, after, steps);
  if (text[gap] === ")") return gap + 1;
  const quote = text[gap];
  if (gap === after || (quote !== '"' && quote !== "'")) return undefined;
  let close = gap + 1;
  while (close < text.length && text[close] !== quote && text[close] !== "\n") close++;
  if (steps) steps.count += close - gap;
  if (text[close] !== quote) return undefined;
  const last = skipSpaces(text, close + 1, steps);
  return text[last] === ")" ? last + 1 : undefined;
}

/**
 * The HTML links `<a … href="http…" …>text</a>` of `text`, with 1 to 300 characters of text. They are
 * what `<a\s[^>]*?href\s*=\s*["']?(https?:\/\/[^"'\s>]+)["']?[^>]*>([\s\S]{1,300}?)<\/a\s*>` (flags `gi`)
 * finds, which took cubic time on `<a href=http://x ` repeated: the target of the first `href` of the tag
 * that has one, and the text up to the first `</a>` that starts within 300 characters of the tag's end.
 */
export function* htmlLinks(text: string, steps?: Steps): Generator<Link> {
  const opening = /<a\s/gi;
  const tagEndAfter = searchForward((from) => indexOf(text, ">", from, steps));
  const hrefAfter = searchForward((from) => findHref(text, from, steps));
  const targetEndAfter = searchForward((from) => runEnd(text, from, endsHtmlTarget, steps));
  const closerAfter = searchForward((from) => findCloser(text, from, steps));
  let target: { readonly href: number; readonly value: string } | undefined;
  let closer: { readonly at: number; readonly end: number } | undefined;

  for (let open = matchFrom(text, opening, 0, steps); open !== NOWHERE; ) {
    const tagEnd = tagEndAfter(open + 3);
    if (tagEnd === NOWHERE) break;
    const href = hrefAfter(open + 3);
    const end = href < tagEnd ? closerAfter(tagEnd + 2) : NOWHERE;
    if (end <= tagEnd + 1 + MAX_SHOWN) {
      if (target?.href !== href) {
        const start = hrefTargetStart(text, href, steps) ?? href;
        target = { href, value: text.slice(start, targetEndAfter(start + schemeLength(text, start))) };
      }
      if (closer?.at !== end) closer = { at: end, end: skipSpaces(text, end + 3, steps) + 1 };
      yield { shown: text.slice(tagEnd + 1, end), target: target.value, offset: open };
      open = matchFrom(text, opening, closer.end, steps);
    } else {
      open = matchFrom(text, opening, open + 1, steps);
    }
  }
}

/** The links of two lists in order of offset, each list in that order already. */
function* inOrder(first: Iterator<Link>, second: Iterator<Link>): Generator<Link> {
  let a = first.next();
  let b = second.next();
  while (!a.done || !b.done) {
    if (!a.done && (b.done || a.value.offset <= b.value.offset)) {
      yield a.value;
      a = first.next();
    } else if (!b.done) {
      yield b.value;
      b = second.next();
    }
  }
}

/** The first `href` at or after `from` followed by `=` and an http(s) address, or {@link NOWHERE}. */
function findHref(text: string, from: number, steps?: Steps): number {
  const word = /href/gi;
  for (
    let at = matchFrom(text, word, from, steps);
    at !== NOWHERE;
    at = matchFrom(text, word, at + 1, steps)
  ) {
    if (hrefTargetStart(text, at, steps) !== undefined) return at;
  }
  return NOWHERE;
}

/** Where the address of `href = "http…"` at `href` starts, when there is one with at least one character after the scheme. */
function hrefTargetStart(text: string, href: number, steps?: Steps): number | undefined {
  const equals = skipSpaces(text, href + 4, steps);
  if (text[equals] !== "=") return undefined;
  let start = skipSpaces(text, equals + 1, steps);
  if (text[start] === '"' || text[start] === "'") start++;
  const scheme = schemeLength(text, start);
  const first = text.charCodeAt(start + scheme);
  return scheme > 0 && start + scheme < text.length && !endsHtmlTarget(first) ? start : undefined;
}

/** The first `</a>` (white space allowed before `>`) at or after `from`, or {@link NOWHERE}. */
function findCloser(text: string, from: number, steps?: Steps): number {
  const closer = /<\/a/gi;
  for (
    let at = matchFrom(text, closer, from, steps);
    at !== NOWHERE;
    at = matchFrom(text, closer, at + 1, steps)
  ) {
    if (text[skipSpaces(text, at + 3, steps)] === ">") return at;
  }
  return NOWHERE;
}

/** 8 for `https://`, 7 for `http://` (any case) at `start`, else 0. */
function schemeLength(text: string, start: number): number {
  const head = text.slice(start, start + 8).toLowerCase();
  if (head === "https://") return 8;
  return head.startsWith("http://") ? 7 : 0;
}

/** The index of the first character at or after `from` that `ends` a run (the text's length if none does). */
function runEnd(text: string, from: number, ends: (code: number) => boolean, steps?: Steps): number {
  let index = from;
  while (index < text.length && !ends(text.charCodeAt(index))) index++;
  if (steps) steps.count += index - from + 1;
  return index;
}

const endsMarkdownTarget = (code: number) => code === 0x29 || code === 0x3e || isSpace(code);
const endsHtmlTarget = (code: number) => code === 0x22 || code === 0x27 || code === 0x3e || isSpace(code);

function hostShown(shown: string): string | undefined {
  const plain = withoutTags(shown).replace(/[`*_]/g, "").trim();
  const match = SHOWN_ADDRESS.exec(plain);
  const host = match?.[2];
  if (match === null || host === undefined) return undefined;
  const ending = host.slice(host.lastIndexOf(".") + 1).toLowerCase();
  if (match[1] === undefined && !/^www\./i.test(host) && !COMMON_ENDINGS.has(ending)) return undefined;
  return hostOf(`http://${host}`);
}

/** `text` without its `<…>` tags (what `text.replace(/<[^>]*>/g, "")` leaves), in one pass. */
function withoutTags(text: string): string {
  let kept = "";
  let from = 0;
  for (let open = text.indexOf("<"); open !== -1; open = text.indexOf("<", from)) {
    const close = text.indexOf(">", open + 1);
    if (close === -1) break;
    kept += text.slice(from, open);
    from = close + 1;
  }
  return kept + text.slice(from);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Domains that one owner moved a service to, each with the domain it now answers on: the one redirects
 * to the other, so a link showing one and going to the other goes where it shows. Only such pairs, not
 * link shorteners (`t.co`, `bit.ly`), which go anywhere, nor hosts of user content (`github.io`).
 */
const SAME_OWNER: ReadonlyMap<string, string> = new Map([
  ["x.com", "twitter.com"],
  ["youtu.be", "youtube.com"],
]);

/** `host` without `www.`, on the domain its owner also answers on (`x.com` as `twitter.com`). */
function siteOf(host: string): string {
  const bare = host.replace(/^www\./, "");
  for (const [alias, domain] of SAME_OWNER) {
    if (bare === alias || bare.endsWith(`.${alias}`))
      return bare.slice(0, bare.length - alias.length) + domain;
  }
  return bare;
}

function sameSite(a: string, b: string): boolean {
  const [x, y] = [siteOf(a), siteOf(b)];
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}
