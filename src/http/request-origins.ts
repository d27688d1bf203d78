import type { ServerContext } from "@modelcontextprotocol/server";

/**
 * Which HTTP request (Fastify's `reqId`, which its request line has) each request a server of the endpoint
 * is answering came in, so that a line its handler logs (a tool that failed inside the server) can be tied
 * to that request line. Told from what the SDK hands the handler: a request the endpoint delivers itself
 * carries the id it was delivered under (see ServerConnection), one that the SDK's entries deliver carries
 * the web Request the endpoint made for them (`ctx.http.req`). Nothing is asked of a call that logs
 * nothing: each request costs a map entry while it is answered. (An AsyncLocalStorage holding the reqId
 * turned on Node 20's promise hooks for every promise of the process: 9% of a new search's CPU.)
 */
export class RequestOrigins {
  #lastId = 0;
  readonly #delivered = new Map<number, string>();
  readonly #forwarded = new WeakMap<Request, string>();

  /**
   * A new id to deliver a request of the HTTP request `reqId` under: no two requests in flight on any
   * server of the endpoint share one, so the id alone tells the request.
   */
  deliver(reqId: string | undefined): number {
    const id = ++this.#lastId;
    if (reqId !== undefined) this.#delivered.set(id, reqId);
    return id;
  }

  /** The request delivered under `id` is answered: nothing it does is logged after. */
  answered(id: number): void {
    this.#delivered.delete(id);
  }

  /** `forwarded`, the web Request made for the SDK's entries, is the HTTP request `reqId`'s. */
  forward(forwarded: Request, reqId: string | undefined): void {
    if (reqId !== undefined) this.#forwarded.set(forwarded, reqId);
  }

  /** The reqId of the HTTP request that a handler's call came in, if the endpoint was told it. */
  reqIdOf(call: ServerContext): string | undefined {
    const forwarded = call.http?.req;
    if (forwarded !== undefined) return this.#forwarded.get(forwarded);
    const { id } = call.mcpReq;
    return typeof id === "number" ? this.#delivered.get(id) : undefined;
  }
}
