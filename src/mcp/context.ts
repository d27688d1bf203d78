import type { Catalog, Scope } from "../catalog/index.js";
import type { SearchIndex } from "../search/index.js";

/** What every tool call may use: built once at startup, except `scope`, which is the caller's. */
export interface ToolContext {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  /** The most this caller may see: the catalog narrowed by its `X-Skill-Pack` header or `?pack=`. */
  readonly scope: Scope;
  /** Told about failures that are not the caller's fault, so they can be logged without reaching it. */
  readonly onInternalError: (error: unknown, tool: string) => void;
}
