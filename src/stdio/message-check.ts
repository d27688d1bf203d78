import {
  INVALID_REQUEST,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
} from "@modelcontextprotocol/server";
import { ForwardingTransport } from "./forwarding-transport.js";

/** Why a message is refused, in `/mcp`'s words, and whether its id may be repeated in the answer. */
export interface MessageProblem {
  readonly message: string;
  /** False when the id itself is in doubt (a message holding `id` twice): the answer carries none. */
  readonly trustsId: boolean;
}

/**
 * A transport that refuses, as `/mcp` does, a message `problemOf` finds wrong before the SDK reads it
 * (nested too deep for the SDK's recursive schemas, a key held twice that the SDK would read the last copy
 * of). A request is answered -32600 with `refuse`; a notification or response, which nothing answers, is
 * handed to `dropped` with its problem.
 */
export class MessageCheck<Problem extends MessageProblem> extends ForwardingTransport {
  constructor(
    inner: Transport,
    private readonly problemOf: (message: JSONRPCMessage) => Problem | undefined,
    /** Writes the answer to a request refused here. */
    private readonly refuse: (answer: JSONRPCErrorResponse) => void,
    /** Told of a notification or response refused here, which gets no answer. */
    private readonly dropped: (problem: Problem) => void,
  ) {
    super(inner);
  }

  protected override received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const problem = this.problemOf(message);
    if (problem === undefined) this.onmessage?.(message, extra);
    else if (isJSONRPCRequest(message)) {
      const error = { code: INVALID_REQUEST, message: problem.message };
      this.refuse(problem.trustsId ? { jsonrpc: "2.0", id: message.id, error } : { jsonrpc: "2.0", error });
    } else this.dropped(problem);
  }
}
