import {
  INVALID_REQUEST,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
} from "@modelcontextprotocol/server";
import { repeatedKeyIn, repeatedKeyMessage, repeatsTheId } from "../json-rpc/index.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/**
 * A transport that refuses, as `/mcp` does, a message holding a key twice in one object: the SDK read the
 * last copy (`"method"` twice ran the second), where a proxy in front of it may read the first. The key
 * is found in the line the message was read from (`line`, the one being read while the SDK hands the
 * message on), which alone still holds both copies. A request is answered with `refuse`, under its id
 * unless the id is what repeats; a notification or response, which nothing answers, is handed to
 * `dropped`.
 */
export class RepeatedKeyCheck extends ForwardingTransport {
  constructor(
    inner: Transport,
    /** The line the message being received was read from. */
    private readonly line: () => Buffer | undefined,
    /** Writes the answer to a request refused here. */
    private readonly refuse: (answer: JSONRPCErrorResponse) => void,
    /** Told of a notification or response refused here, which gets no answer. */
    private readonly dropped: () => void,
  ) {
    super(inner);
  }

  protected override received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const line = this.line();
    const repeated = line === undefined ? undefined : repeatedKeyIn(line.toString("utf8"));
    if (repeated === undefined) this.onmessage?.(message, extra);
    else if (isJSONRPCRequest(message)) {
      const error = { code: INVALID_REQUEST, message: repeatedKeyMessage(repeated) };
      this.refuse(
        repeatsTheId(repeated) ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id: message.id, error },
      );
    } else this.dropped();
  }
}
