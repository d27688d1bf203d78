import type { Socket } from "node:net";

/** How long a connection closed on a refused body is still read from, and how many may be at once. */
export interface LingerBounds {
  /** The most a connection lingers in all, from its answer on. */
  readonly totalMs: number;
  /** The most it lingers without a byte from its client (checked every quarter of it, so up to 1.25 times). */
  readonly idleMs: number;
  /** The most connections lingering at once; past it, one closes at once, as without lingering. */
  readonly most: number;
}

/**
 * nginx's own bounds (`lingering_time` 30 s and `lingering_timeout` 5 s) shortened: 5 s of reading takes
 * gigabytes on a local network and megabytes over the slowest one a client posts from, and a client that
 * stops sending for 1 s has stopped; 64 connections at once leave a flood of refused bodies costing no more
 * than 64 sockets (the bytes read are never held).
 */
export const LINGER_BOUNDS: LingerBounds = { totalMs: 5000, idleMs: 1000, most: 64 };

/**
 * The connections that close lingering, as nginx's do: the answer written, the server shuts down its side
 * (the client reads the end of the answer) and reads and throws away what the client still sends, until the
 * client shuts down its own side, goes, sends nothing for `idleMs` or `totalMs` pass; then it closes. A
 * connection closed with bytes unread is reset by the kernel, and a reset can reach the client before it
 * reads the answer: a client that writes its whole body before reading (Node's fetch, Python's http.client)
 * saw ECONNRESET or EPIPE where it was sent a 413.
 */
export class LingeringCloses {
  /** Each lingering connection, with what closes it. */
  readonly #sockets = new Map<Socket, () => void>();

  constructor(readonly bounds: LingerBounds) {}

  /** How many connections linger now. */
  get count(): number {
    return this.#sockets.size;
  }

  /** Whether `socket` lingers: it has been answered, and what comes on it is read only to be thrown away. */
  has(socket: Socket): boolean {
    return this.#sockets.has(socket);
  }

  /**
   * Makes the close of `socket` after the answer in hand, which closes it (`Connection: close`), a lingering
   * one. Node closes such a connection through `destroySoon` once its last answer is written: that is the
   * moment taken over, for this socket alone. Once `most` linger, it closes at once, as Node closes it.
   */
  closeAfterAnswer(socket: Socket): void {
    socket.destroySoon = () => this.close(socket);
  }

  /**
   * Closes `socket`, its last answer written, lingering; once `most` linger, at once. Also for an answer
   * written on the connection itself (a request Node could not parse, with bytes still coming after it).
   */
  close(socket: Socket): void {
    if (this.#sockets.size >= this.bounds.most || socket.destroyed) {
      socket.end(() => socket.destroy());
      return;
    }
    this.#linger(socket);
  }

  /**
   * Closes every lingering connection now, for the server's stop: a lingering connection has had its
   * answer, and nothing it still sends is read for a request, so waiting for it held the stop up to
   * `totalMs`, past the drain, for a client owed nothing.
   */
  closeAll(): void {
    for (const close of [...this.#sockets.values()]) close();
  }

  #linger(socket: Socket): void {
    const { totalMs, idleMs } = this.bounds;
    const close = (): void => {
      clearTimeout(whole);
      clearInterval(watch);
      socket.off("end", close);
      socket.off("close", close);
      this.#sockets.delete(socket);
      socket.destroy();
    };
    this.#sockets.set(socket, close);
    // Left ref'd: the socket's own handle holds the process up while it lingers, so unref'd timers would let
    // nothing exit sooner, and closeAll clears them at the stop. A client that shut down its side needs no
    // case of its own: the end below finishes the socket, Node destroys it, and 'close' ends the lingering.
    const whole = setTimeout(close, totalMs);
    // Told by the count of bytes read, not by 'data' events: Node's parser reads the connection itself and
    // throws the rest of a refused body away, so no event says that a byte came.
    let read = socket.bytesRead;
    let heardAt = Date.now();
    const watch = setInterval(() => {
      const now = Date.now();
      if (socket.bytesRead !== read) {
        read = socket.bytesRead;
        heardAt = now;
      } else if (now - heardAt >= idleMs) close();
    }, idleMs / IDLE_CHECKS);
    socket.once("end", close);
    socket.once("close", close);
    socket.end();
  }
}

/** How many times within the idle bound a lingering connection is checked for bytes come. */
const IDLE_CHECKS = 4;
