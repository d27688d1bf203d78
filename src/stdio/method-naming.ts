import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  METHOD_NOT_FOUND,
  type MessageExtraInfo,
  ProtocolErrorCode,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../json-rpc/index.js";
import {
  handshakeOnModernConnection,
  inParamsWords,
  methodNotFoundMessage,
  namingEnvelopeKey,
  namingEnvelopeVersion,
  requestAsMeant,
} from "../mcp/index.js";
import { cancelledRequest } from "./cancelled.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/** How every method of a notification begins, in MCP. */
const NOTIFICATIONS = "notifications/";

/**
 * A transport whose "Method not found" answers name the method asked and those served, as `/mcp`'s do (the
 * SDK's say only "Method not found"), whose refusal of `initialize` on a connection that speaks 2026-07-28
 * says so (the SDK's names the revision asked as unsupported), and whose refusals of params are worded as `/mcp` words them (see
 * inParamsWords), which needs the request. `served` gives the methods of the server now answering, once
 * there is one. Each request is remembered, by id, until answered or cancelled: the budget of answers
 * (see BudgetedTransport) holds back the requests past a few.
 */
export class MethodNaming extends ForwardingTransport {
  readonly #asked = new Map<RequestId, JSONRPCRequest>();

  constructor(
    inner: Transport,
    private readonly served: () => readonly string[] | undefined,
    /** Told of a notification named as a request (`tools/list` without an id), which nothing answers. */
    private readonly unanswerable: (method: string) => void = () => {},
  ) {
    super(inner);
  }

  protected override received(received: JSONRPCMessage, extra?: MessageExtraInfo): void {
    // Params as /mcp reads them (see requestAsMeant), so that both answer alike.
    const message = requestAsMeant(received) as JSONRPCMessage;
    if (isJSONRPCRequest(message)) this.#asked.set(message.id, message);
    else if (isJSONRPCNotification(message) && !message.method.startsWith(NOTIFICATIONS))
      this.unanswerable(message.method);
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined) this.#asked.delete(cancelled);
    this.onmessage?.(message, extra);
  }

  override send(answer: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isJSONRPCResultResponse(answer) && !isJSONRPCErrorResponse(answer))
      return this.inner.send(answer, options);
    const request = answer.id === undefined ? undefined : this.#asked.get(answer.id);
    if (answer.id !== undefined) this.#asked.delete(answer.id);
    const message = namingEnvelopeKey(namingEnvelopeVersion(inParamsWords(answer, request), request));
    const served = this.served();
    // The SDK refuses the handshake on a connection that speaks 2026-07-28 as a version it does not speak
    // ("Unsupported protocol version: 2025-11-25"), which this server serves on a connection opened with it.
    if (
      request?.method === "initialize" &&
      served?.includes("server/discover") === true &&
      isJSONRPCErrorResponse(message) &&
      message.error.code === ProtocolErrorCode.UnsupportedProtocolVersion
    ) {
      const requested = isJsonObject(request.params) ? request.params.protocolVersion : undefined;
      const error = { ...message.error, message: handshakeOnModernConnection(requested) };
      return this.inner.send({ ...message, error }, options);
    }
    if (
      request === undefined ||
      served === undefined ||
      served.includes(request.method) ||
      !isJSONRPCErrorResponse(message) ||
      message.error.code !== METHOD_NOT_FOUND
    )
      return this.inner.send(message, options);
    const error = { ...message.error, message: methodNotFoundMessage(request.method, served, request) };
    return this.inner.send({ ...message, error }, options);
  }
}
