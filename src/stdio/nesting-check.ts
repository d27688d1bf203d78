import {
  INVALID_REQUEST,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
} from "@modelcontextprotocol/server";
import { nestedDeeperThan, TOO_DEEP } from "../json-rpc/index.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/**
 * A transport that refuses, as `/mcp` does, a message nested deeper than MAX_NESTING before the SDK reads
 * it: the SDK's schemas walk `initialize`'s capabilities recursively, and a request nested some thousands
 * deep was answered -32603 "Maximum call stack size exceeded", and a response so nested logged as a fault
 * of ours with its stack, where `/mcp` refuses both as nested too deep. A request is answered with
 * `refuse` under its id; a notification or response, which nothing answers, is handed to `dropped`.
 */
export class NestingCheck extends ForwardingTransport {
  constructor(
    inner: Transport,
    /** Writes the answer to a request refused here. */
    private readonly refuse: (answer: JSONRPCErrorResponse) => void,
    /** Told of a notification or response refused here, which gets no answer. */
    private readonly dropped: () => void,
  ) {
    super(inner);
  }

  protected override received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (!nestedDeeperThan(message)) this.onmessage?.(message, extra);
    else if (isJSONRPCRequest(message))
      this.refuse({ jsonrpc: "2.0", id: message.id, error: { code: INVALID_REQUEST, message: TOO_DEEP } });
    else this.dropped();
  }
}
