import type { JSONRPCMessage, JSONRPCResponse } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog, Scope } from "../catalog/index.js";
import { createMcpServer, type ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { AnswerCache, answerKey } from "./answers.js";
import { ExchangeTransport } from "./exchange.js";

export interface CeilingServersOptions {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
  readonly onInternalError: (error: unknown, tool: string) => void;
  /** Bytes of kept answers over all ceilings; the default suits production. */
  readonly answerCacheBytes?: number;
}

/** What a POST /mcp gets back: JSON-RPC answers, or 202 when it held only notifications. */
export type McpAnswer =
  | { readonly status: 200; readonly body: Buffer | string; readonly failed: boolean }
  | { readonly status: 202 };

/**
 * One MCP server per ceiling, built the first time a client with that ceiling calls and then shared by
 * every request with it: the catalog never changes while serving, and building a server (tools, schemas,
 * validators) cost more than answering. Keyed weakly by the scope, so a ceiling the resolver forgets
 * takes its server with it. Answers that are the same every time are kept, over all ceilings.
 */
export class CeilingServers {
  readonly #servers = new WeakMap<Scope, Promise<CeilingServer>>();
  readonly #answers: AnswerCache;
  #lastId = 0;

  constructor(private readonly options: CeilingServersOptions) {
    this.#answers = new AnswerCache(options.answerCacheBytes);
  }

  /** The server bound to `scope`. */
  for(scope: Scope): Promise<CeilingServer> {
    let server = this.#servers.get(scope);
    if (server === undefined) {
      server = this.#connect(scope);
      this.#servers.set(scope, server);
    }
    return server;
  }

  async #connect(scope: Scope): Promise<CeilingServer> {
    const { catalog, index, info, onInternalError } = this.options;
    const server = createMcpServer(info, { catalog, index, scope, onInternalError });
    const transport = new ExchangeTransport();
    await server.connect(transport);
    return new CeilingServer(`${++this.#lastId}`, transport, this.#answers);
  }
}

/** The MCP server of one ceiling, behind the answers it already gave. */
export class CeilingServer {
  constructor(
    private readonly ceiling: string,
    private readonly transport: ExchangeTransport,
    private readonly answers: AnswerCache,
  ) {}

  async answer(messages: readonly JSONRPCMessage[]): Promise<McpAnswer> {
    const [only] = messages;
    const key = messages.length === 1 && only !== undefined ? answerKey(only) : undefined;
    if (key !== undefined) {
      const kept = this.answers.answer(`${this.ceiling}\n${key.request}`, key.id);
      if (kept) return { status: 200, body: kept, failed: false };
    }
    const answers = await this.transport.exchange(messages);
    if (answers.length === 0) return { status: 202 };
    const failed = answers.some(isFailure);
    const [answer] = answers;
    if (key !== undefined && answers.length === 1 && answer !== undefined && "result" in answer) {
      return {
        status: 200,
        body: this.answers.keep(
          `${this.ceiling}\n${key.request}`,
          key.id,
          answer.result,
          key.keptWhenRepeated,
        ),
        failed,
      };
    }
    // One request gets one answer, a batch an array, as the SDK's transport answers.
    return { status: 200, body: JSON.stringify(answers.length === 1 ? answer : answers), failed };
  }
}

/** A JSON-RPC error, or a tool result with isError: counted as an error by the metrics. */
function isFailure(answer: JSONRPCResponse): boolean {
  return "error" in answer || answer.result.isError === true;
}
