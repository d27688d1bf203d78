import type { Scope } from "../catalog/index.js";

/** How many distinct header/query combinations keep their resolved scope; clients reuse a handful. */
const REMEMBERED_CEILINGS = 256;

/**
 * Resolves a client's ceiling from its `X-Skill-Pack` header and `?pack=` parameter: the client sees
 * what both allow, so `?pack=` is resolved within the header's scope (where a group name two packs
 * share may be unique). Results are remembered, since the catalog never changes while serving.
 * Throws the catalog's SelectorError for a selector that matches nothing in its scope.
 */
export class CeilingResolver {
  private readonly remembered = new Map<string, Scope>();

  constructor(private readonly everything: Scope) {}

  resolve(header: string | undefined, query: string | undefined): Scope {
    const key = `${header ?? ""}\n${query ?? ""}`;
    const known = this.remembered.get(key);
    if (known) return known;
    const scope = this.everything.narrow([header ?? ""]).narrow([query ?? ""]);
    if (this.remembered.size >= REMEMBERED_CEILINGS) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    this.remembered.set(key, scope);
    return scope;
  }
}
