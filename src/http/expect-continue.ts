import type { IncomingMessage, Server, ServerResponse } from "node:http";

/**
 * `Expect: 100-continue` answered with `100 Continue` only once the body is read, not as the headers
 * arrive, as Node does by default: a request refused before its body is read (larger than MAX_BODY_BYTES
 * by its Content-Length, no such route, no API key, over the rate limit) got `100 Continue` and then its
 * refusal, so its client began uploading a body no one would read. Refused, it gets its answer alone,
 * and Node closes the connection after it, since the client may still send the body it held back.
 */
export function continueOnceBodyIsRead(server: Server): void {
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    // Fastify reads a body by listening for its data, which resumes the stream; a body never read is
    // resumed by Node only to discard it, once the answer is sent, too late for a 100 to be of use.
    request.once("resume", () => {
      if (!response.headersSent && !response.writableEnded) response.writeContinue();
    });
    // Handled here, the request is no longer handed on by Node: Fastify listens for it as any other.
    server.emit("request", request, response);
  });
}
