import type { Scope, Skill } from "../catalog/index.js";

/**
 * Which documents a scope allows, as a byte per document (undefined: all of them). Scopes are immutable
 * and callers' scopes are reused across requests, so each scope's mask is built once and kept while it lives.
 */
export class ScopeMasks {
  private readonly positions: ReadonlyMap<Skill, number>;
  private readonly masks = new WeakMap<Scope, Uint8Array | undefined>();

  constructor(private readonly skills: readonly Skill[]) {
    this.positions = new Map(skills.map((skill, position) => [skill, position]));
  }

  mask(scope: Scope): Uint8Array | undefined {
    if (this.masks.has(scope)) return this.masks.get(scope);
    let mask: Uint8Array | undefined;
    if (
      scope.skills.length < this.skills.length ||
      scope.skills.some((skill) => !this.positions.has(skill))
    ) {
      mask = new Uint8Array(this.skills.length);
      for (const skill of scope.skills) {
        const position = this.positions.get(skill);
        if (position !== undefined) mask[position] = 1;
      }
    }
    this.masks.set(scope, mask);
    return mask;
  }
}
