import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  METHOD_NOT_FOUND,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { inParamsWords, methodNotFoundMessage, requestAsMeant } from "../mcp/index.js";
import { cancelledRequest } from "./cancelled.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/**
 * A transport whose "Method not found" answers name the method asked and those served, as `/mcp`'s do (the
 * SDK's say only "Method not found"). `served` gives the methods of the server now answering, once there
 * is one. Only requests for methods not among them are remembered, by id, until answered or cancelled.
 */
export class MethodNaming extends ForwardingTransport {
  readonly #unserved = new Map<RequestId, string>();

  constructor(
    inner: Transport,
    private readonly served: () => readonly string[] | undefined,
  ) {
    super(inner);
  }

  protected override received(received: JSONRPCMessage, extra?: MessageExtraInfo): void {
    // Params as /mcp reads them (see requestAsMeant), so that both answer alike.
    const message = requestAsMeant(received) as JSONRPCMessage;
    if (isJSONRPCRequest(message) && !this.served()?.includes(message.method))
      this.#unserved.set(message.id, message.method);
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined) this.#unserved.delete(cancelled);
    this.onmessage?.(message, extra);
  }

  override send(answer: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // A refusal of a tools/call's params worded as /mcp words it (see inParamsWords).
    const message = inParamsWords(answer);
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message))
      return this.inner.send(message, options);
    const method = message.id === undefined ? undefined : this.#unserved.get(message.id);
    if (method === undefined) return this.inner.send(message, options);
    if (message.id !== undefined) this.#unserved.delete(message.id);
    const served = this.served();
    if (!isJSONRPCErrorResponse(message) || message.error.code !== METHOD_NOT_FOUND || served === undefined)
      return this.inner.send(message, options);
    const error = { ...message.error, message: methodNotFoundMessage(method, served) };
    return this.inner.send({ ...message, error }, options);
  }
}
