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

  /** Requests that arrived whole and whose answer the server has not finished writing. */
  answering(): number {
    let count = 0;
    for (const [request, response] of this.#requests) {
      if (request.complete && !response.writableEnded) count++;
    }
    return count;
  }
}
