import type { ServerContext } from "@modelcontextprotocol/server";
import type { Catalog, Scope, Skill } from "../catalog/index.js";
import type { Preview } from "../preview/index.js";
import type { SearchIndex } from "../search/index.js";

/** What every tool call may use: built once at startup, except what the caller's scope makes. */
export interface ToolContext {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  /** The most this caller may see: the catalog narrowed by its `X-Skill-Pack` header or `?pack=`. */
  readonly scope: Scope;
  /**
   * What listings and searches show a model: `scope` less the skills whose frontmatter disables model
   * invocation, which are still read by their exact name.
   */
  readonly listed: Scope;
  /** What the model was told of `listed` up front; list_packs says what each pack is for with it. */
  readonly preview: Preview;
  /** The skills of `scope` that are prompts: all but those whose frontmatter says `user-invocable: false`. */
  readonly prompted: readonly Skill[];
  /**
   * Told about failures that are not the caller's fault, so they can be logged without reaching it, with
   * the call they failed in (the handler's context), which tells the request they belong to.
   */
  readonly onInternalError: (error: unknown, tool: string, call: ServerContext) => void;
}

/**
 * What a line logged for a failed call says of the request it failed in, to tie the two: over HTTP the
 * `reqId` of the request's own log line, over stdio (no request line) the JSON-RPC id the client gave it.
 */
export type RequestTag = { readonly reqId?: string } | { readonly rpcId: string | number };
