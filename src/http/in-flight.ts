import type { IncomingMessage, Server, ServerResponse } from "node:http";

/**
 * The requests a server has begun and not finished, so that shutdown can tell whose a late one is: a
 * request still arriving waits on its client, one that arrived whole and is not answered yet on the
 * server.
 */
export class InFlight {
  readonly #requests = new Map<IncomingMessage, ServerResponse>();

  /** Watches every request `server` takes from now on. */
  static watch(server: Server): InFlight {
    const inFlight = new InFlight();
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      inFlight.#requests.set(request, response);
      response.once("close", () => inFlight.#requests.delete(request));
    });
    return inFlight;
  }

  /**
   * Answers the server has written whole that their clients have not taken yet: a large answer to a slow
   * reader, and the answers pipelined behind it. Node counts their connections idle, and a close ends
   * idle connections at once, cutting these answers short.
   */
  untaken(): ServerResponse[] {
    return [...this.#requests.values()].filter(
      (response) => response.writableEnded && !response.writableFinished,
    );
  }

  /**
   * Resolves once no answer is untaken: each taken, or its connection gone (as the grace's end closes
   * every connection). Those written meanwhile, the answers pipelined behind a slow one, are waited for too.
   */
  async taken(): Promise<void> {
    for (let untaken = this.untaken(); untaken.length > 0; untaken = this.untaken()) {
      await Promise.all(untaken.map((response) => new Promise((resolve) => response.once("close", resolve))));
    }
  }

  /** Requests that arrived whole and whose answer the server has not finished writing. */
  answering(): number {
    let count = 0;
    for (const [request, response] of this.#requests) {
      if (request.complete && !response.writableEnded) count++;
    }
    return count;
  }
}
