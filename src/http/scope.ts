import { isAscii, isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Scope } from "../catalog/index.js";

/** How many distinct header/query combinations keep their resolved scope; clients reuse a handful. */
const REMEMBERED_SCOPES = 256;

/** A caller's scope, and the header and query it was resolved from (which key its kept answers). */
export interface CallerScope {
  readonly scope: Scope;
  readonly key: string;
}

/**
 * Resolves a client's scope from its `X-Skill-Pack` header and `?pack=` parameter: the client sees what
 * both allow, so `?pack=` is resolved within the header's scope (where a group name two packs share may
 * be unique). Results are remembered, since the catalog never changes while serving. Throws the
 * catalog's SelectorError for a selector that matches nothing in its scope.
 */
export class ScopeResolver {
  readonly #remembered = new LRUCache<string, CallerScope>({ max: REMEMBERED_SCOPES });
  /**
   * The same, by the skills they hold: another spelling of a known scope (another order, a trailing comma,
   * a pack named by all its groups) is that scope, with its preview, servers and kept answers, rather than
   * one more to work out, for a header anyone can vary (see docs/performance.md, *A new scope*).
   */
  readonly #bySkills = new LRUCache<string, CallerScope>({ max: REMEMBERED_SCOPES });

  constructor(private readonly everything: Scope) {}

  /** `query` holds each `?pack=` apart, so that a refusal quotes them as sent. */
  resolve(header: string | undefined, query: readonly string[] | undefined): CallerScope {
    const key = `${header ?? ""}\n${query?.join(",") ?? ""}`;
    const known = this.#remembered.get(key);
    if (known) return known;
    const scope = this.everything.narrow([header ?? ""]).narrow(query ?? []);
    // The skills, pack by pack: a pack held whole by its name alone, rather than every skill's.
    const packs = scope.packs.map((pack) =>
      pack.skills.length === this.everything.findPack(pack.name)?.skills.length
        ? pack.name
        : [pack.name, ...pack.skills.map((skill) => skill.name)],
    );
    const skills = createHash("sha256").update(JSON.stringify(packs)).digest("base64");
    const resolved = this.#bySkills.get(skills) ?? { scope, key };
    this.#bySkills.set(skills, resolved);
    this.#remembered.set(key, resolved);
    return resolved;
  }
}

/**
 * A header's value as its client wrote it. Node reads each byte of a header as one Latin-1 character, so
 * a selector outside ASCII sent in UTF-8 (as curl and most HTTP libraries send it, and as
 * `skills-mcp sync` sends what Latin-1 cannot hold) arrives garbled (`日本語` as `æ—¥æœ¬èªž`) and would
 * match nothing. Bytes that are valid UTF-8 are read as UTF-8; other bytes stay Latin-1, as fetch sends
 * `é` (one byte, never valid UTF-8 alone).
 */
export function headerText(value: string): string {
  const bytes = Buffer.from(value, "latin1");
  return isAscii(bytes) || !isUtf8(bytes) ? value : bytes.toString("utf8");
}
