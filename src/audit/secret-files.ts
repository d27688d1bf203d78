/** The secret-file rule: a file of credentials named (`~/.ssh`, `~/.aws/credentials`). */

import { listedWithAnd, quoted } from "../shared/index.js";
import type { Reader } from "./reader.js";
import type { Hit } from "./rules.js";
import { details } from "./text-around.js";

/**
 * Where keys and tokens live: the SSH folder (but its `config` and `known_hosts`, which setup guides
 * edit), private keys by their usual names, and the credential stores of common tools.
 */
const SECRET =
  /(?<![\w.-])\.ssh(?![\w.-])|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub\b)|\.aws\/credentials\b|(?<![\w.-])\.netrc\b|\.git-credentials\b|\.docker\/config\.json\b|(?<![\w.-])\.gnupg\b|\/etc\/shadow\b|\bfind-(?:generic|internet)-password\b|\.config\/gh\/hosts\.yml\b|\bapplication_default_credentials\.json\b|\.azure\/accessTokens\.json\b/y;
const SSH_PUBLIC_PARTS = /^\/(?:config|known_hosts)(?![\w-]|\.\w)/;

/** The most names one line's finding quotes; the others are counted. */
const NAMED = 4;

/**
 * One finding a line, naming each place it reads keys from, with one snippet of the line: `tar czf - ~/.ssh
 * ~/.gnupg ~/.aws/credentials | curl …` repeated the line once for each name, beside the data-upload
 * finding quoting it again. Each line is searched for its end once, after its first name.
 */
export function secretFile(text: string): Reader {
  const detail = details(text);
  let line: { start: number; end: number; lineEnd: number; names: string[]; more: number } | undefined;
  const found = (): Hit | undefined => {
    if (line === undefined) return undefined;
    const { start, end, names, more } = line;
    const listed = names.map((name) => quoted(name));
    if (more > 0) listed.push(`${more} more`);
    const named = listedWithAnd(listed);
    return {
      rule: "secret-file",
      offset: start,
      detail: detail(`names ${named}, where keys or credentials are kept`, start, end, 40),
    };
  };
  return {
    pattern: SECRET,
    next: 0,
    read(match) {
      const end = match.index + match[0].length;
      this.next = end;
      if (match[0] === ".ssh" && SSH_PUBLIC_PARTS.test(text.slice(end, end + 13))) return undefined;
      if (line !== undefined && match.index < line.lineEnd) {
        if (line.names.includes(match[0])) return undefined;
        if (line.names.length < NAMED) line.names.push(match[0]);
        else line.more++;
        return undefined;
      }
      const hit = found();
      const lineEnd = text.indexOf("\n", end);
      line = {
        start: match.index,
        end,
        lineEnd: lineEnd === -1 ? text.length : lineEnd,
        names: [match[0]],
        more: 0,
      };
      return hit;
    },
    finish: found,
  };
}
