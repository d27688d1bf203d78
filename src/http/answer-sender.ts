import type { Socket } from "node:net";
import type { FastifyReply } from "fastify";
import type { Answer } from "./answer-cache.js";

/**
 * Bytes of answers a connection may have waiting behind the one being sent, for its client to take them.
 * Node answers requests sent one after another on a connection (pipelined) without waiting for the client
 * to read: a kept `prompts/list` of some 27 KB asked in 50 bytes, sent a thousand times on each of 64
 * connections that never read, took a server past 2 GB.
 */
const QUEUED_ANSWER_BYTES = 8 * 1024 * 1024;

/** Sends answers, holding each connection to {@link QUEUED_ANSWER_BYTES} of answers its client has not taken. */
export class AnswerSender {
  /** The bytes of answers each connection has been given and not yet taken. */
  readonly #queued = new WeakMap<Socket, number>();

  send(reply: FastifyReply, answer: Answer): FastifyReply {
    // Only an answer queued behind another on its connection is counted: Node gives it the socket once
    // those before it are sent, so a client that waits for each answer, the common case, pays nothing here.
    if (reply.raw.socket === null) {
      const { socket } = reply.request.raw;
      const queued = this.#queued.get(socket) ?? 0;
      if (queued > 0 && queued + answer.body.length > QUEUED_ANSWER_BYTES) {
        // A client that does not take its answers loses its connection, with what it asked.
        socket.destroy();
        return reply.code(503).send();
      }
      this.#queued.set(socket, queued + answer.body.length);
      reply.raw.once("close", () =>
        this.#queued.set(socket, (this.#queued.get(socket) ?? 0) - answer.body.length),
      );
    }
    reply.code(answer.status);
    // Notifications only: accepted, and nothing to answer.
    if (answer.body.length === 0) return reply.send();
    return reply.header("content-type", answer.contentType).send(answer.body);
  }
}
