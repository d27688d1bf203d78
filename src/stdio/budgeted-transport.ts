import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import type { ByteBudget } from "../budget/index.js";
import { cancelledRequest } from "./cancelled.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/**
 * A transport that hands the server a request only once `budget` has room for what its answer weighs (the
 * files it holds), and gives that back once the answer is written out (or the request cancelled). Over stdio
 * every request would otherwise be answered at once and every answer queued in memory until the client reads
 * it: 200 reads of an 8 MiB file from a client that did not read took a server to 3 GB. Messages reach the
 * server in the order they came.
 */
export class BudgetedTransport extends ForwardingTransport {
  /** What each request handed on holds, by id, until its answer is written. */
  readonly #held = new Map<RequestId, (() => void)[]>();
  #handedOn: Promise<void> = Promise.resolve();
  /** Messages received and not yet handed on, and the bytes of their lines. */
  #waiting = 0;
  #waitingBytes = 0;
  #paused = false;

  constructor(
    inner: Transport,
    private readonly budget: ByteBudget,
    /** What the answer to a request weighs: the bytes of files it may hold, or more; 0 never waits. */
    private readonly weigh: (method: string, params: unknown) => number,
    /**
     * Stops and restarts reading the client's messages: stopped while `maxWaiting` wait to be handed on, or
     * their lines (`current`, the line being read) hold `maxWaitingBytes`, restarted once half as many do,
     * so that a client that keeps sending while its answers are not taken is made to wait instead of having
     * everything it sends kept. Told of each message as it is read.
     */
    private readonly input?: {
      readonly pause: () => void;
      readonly resume: () => void;
      readonly parsed?: () => void;
      readonly current?: Uint8Array | undefined;
    },
    private readonly maxWaiting = 1024,
    private readonly maxWaitingBytes = 16 * 1024 * 1024,
  ) {
    super(inner);
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } finally {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.#giveBack(message.id);
    }
  }

  override close(): Promise<void> {
    this.#giveAllBack();
    return this.inner.close();
  }

  protected override closed(): void {
    this.#giveAllBack();
    super.closed();
  }

  /**
   * Writes an answer of our own (to a line that was no message) in turn with the messages received before,
   * holding `weight` of the budget until it is written: answered at once, a client that sent such lines
   * without reading had every answer queued in memory.
   */
  answer(answer: JSONRPCMessage, weight: number): void {
    this.#inTurn(0, async () => {
      const free = await this.budget.take(weight);
      this.inner.send(answer).then(free, free);
    });
  }

  protected override received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.input?.parsed?.();
    const weight = isJSONRPCRequest(message) ? this.weigh(message.method, message.params) : 0;
    // Counted by its line: 1,024 messages of 10 MiB waiting, from a client that did not read, would take
    // some 13 GB.
    this.#inTurn(this.input?.current?.length ?? 0, async () => {
      if (weight > 0 && isJSONRPCRequest(message)) {
        const free = await this.budget.take(weight);
        this.#held.set(message.id, [...(this.#held.get(message.id) ?? []), free]);
      }
      // A cancelled request is never answered: what it holds is given back now.
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined) this.#giveBack(cancelled);
      this.onmessage?.(message, extra);
    });
  }

  /**
   * Runs `step` once the steps before it have run, counted (with the `bytes` of its line) among those
   * waiting until then.
   */
  #inTurn(bytes: number, step: () => Promise<void>): void {
    this.#waiting++;
    this.#waitingBytes += bytes;
    if (!this.#paused && (this.#waiting >= this.maxWaiting || this.#waitingBytes >= this.maxWaitingBytes)) {
      this.#paused = true;
      this.input?.pause();
    }
    this.#handedOn = this.#handedOn.then(async () => {
      await step();
      this.#waiting--;
      this.#waitingBytes -= bytes;
      if (
        this.#paused &&
        this.#waiting <= this.maxWaiting / 2 &&
        this.#waitingBytes <= this.maxWaitingBytes / 2
      ) {
        this.#paused = false;
        this.input?.resume();
      }
    });
  }

  #giveBack(id: RequestId | undefined): void {
    if (id === undefined) return;
    const frees = this.#held.get(id);
    frees?.shift()?.();
    if (frees?.length === 0) this.#held.delete(id);
  }

  #giveAllBack(): void {
    for (const frees of this.#held.values()) for (const free of frees) free();
    this.#held.clear();
  }
}
