import type { Scope } from "../catalog/index.js";

/** How many distinct header/query combinations keep their resolved scope; clients reuse a handful. */
const REMEMBERED_CEILINGS = 256;

/**
 * Resolves a client's ceiling from its `X-Skill-Pack` header and `?pack=` parameter: each narrows the
 * deployment's catalog, and together the client sees what both allow. Results are remembered, since
 * the catalog never changes while serving. Throws the catalog's SelectorError for a selector that
 * matches nothing, and a CeilingError when the two share no skill.
 */
export class CeilingResolver {
  private readonly remembered = new Map<string, Scope>();

  constructor(private readonly everything: Scope) {}

  resolve(header: string | undefined, query: string | undefined): Scope {
    const key = `${header ?? ""}\n${query ?? ""}`;
    const known = this.remembered.get(key);
    if (known) return known;
    const scope = this.compute(header ?? "", query ?? "");
    if (this.remembered.size >= REMEMBERED_CEILINGS) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    this.remembered.set(key, scope);
    return scope;
  }

  private compute(header: string, query: string): Scope {
    const byHeader = this.everything.narrow([header]);
    const byQuery = this.everything.narrow([query]);
    const both = byHeader.intersect(byQuery);
    if (both.skills.length === 0) {
      throw new CeilingError(
        `X-Skill-Pack "${header}" and ?pack="${query}" share no skill; valid selectors: ${this.everything.describeSelectors()}.`,
      );
    }
    return both;
  }
}

export class CeilingError extends Error {
  override name = "CeilingError";
}
