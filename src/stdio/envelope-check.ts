import {
  classifyInboundRequest,
  type InboundClassificationOutcome,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
  UnsupportedProtocolVersionError,
} from "@modelcontextprotocol/server";
import {
  envelopeVersionMessage,
  MODERN_REVISION,
  unclaimedEnvelopeError,
  unclaimedEnvelopeKeys,
} from "../mcp/index.js";
import { ForwardingTransport } from "./forwarding-transport.js";

/**
 * A transport that refuses, as `/mcp` does, a request whose 2026-07-28 envelope the SDK's stdio entry
 * checks only on the message that opens the connection. Once a connection speaks 2026-07-28, the SDK
 * served a request whose envelope names a revision this server does not speak (`2027-01-01`, or
 * `2025-11-25`), where `/mcp` and the opening message refuse it (-32022, naming the revision served); and
 * it refused an envelope with a key missing or wrong without naming the key ("Invalid input: expected
 * object, received undefined"), where they name it (and give it in `data.envelope`). A request holding
 * keys of an envelope but not its version (see unclaimedEnvelopeError), on a connection not settled in
 * 2025, is refused as `/mcp` refuses it without MCP-Protocol-Version: the SDK settled a new connection in
 * 2025 on it and served it so, and on a 2026-07-28 connection refused it as "expected string, received
 * undefined", naming no key. Such a request is answered with `refuse` and not handed on.
 *
 * Assumption: the SDK's stdio entry settles a connection's era on its first request or notification
 * that it does not refuse: 2026-07-28 for one whose envelope names that revision, but `server/discover`
 * and the notifications after it, which probe; 2025 for any other (the handshake, or a request with no
 * envelope), also after a probe. Settled, it never changes. A 2025 connection reads no envelope, and is
 * left as it is.
 */
export class EnvelopeCheck extends ForwardingTransport {
  #era: "modern" | "legacy" | undefined;
  /** Whether the connection opened with `server/discover`, before its era is settled. */
  #probing = false;

  constructor(
    inner: Transport,
    /** Writes the answer to a request refused here. */
    private readonly refuse: (answer: JSONRPCErrorResponse) => void,
  ) {
    super(inner);
  }

  protected override received(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const refusal = this.#refusalOf(message);
    if (refusal === undefined) this.onmessage?.(message, extra);
    else this.refuse(refusal);
  }

  #refusalOf(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
    if (this.#era === "legacy" || !(isJSONRPCRequest(message) || isJSONRPCNotification(message))) return;
    const unclaimed = unclaimedEnvelopeKeys(message);
    if (unclaimed !== undefined && isJSONRPCRequest(message)) {
      const toSpeak = `add "${PROTOCOL_VERSION_META_KEY}": "${MODERN_REVISION}" to params._meta`;
      return { jsonrpc: "2.0", id: message.id, error: unclaimedEnvelopeError(unclaimed, "", toSpeak) };
    }
    // Over stdio there are no headers: the envelope alone tells the era and the revision.
    const outcome = classifyInboundRequest({ httpMethod: "POST", body: message });
    if (this.#era === undefined) {
      this.#era = this.#eraOpened(message, outcome);
      return;
    }
    if (!isJSONRPCRequest(message)) return;
    if (outcome.kind === "reject" && outcome.rung === "envelope") {
      const error = { code: outcome.code, message: outcome.message, data: outcome.data };
      return { jsonrpc: "2.0", id: message.id, error };
    }
    if (outcome.kind === "modern" && outcome.classification.revision !== MODERN_REVISION) {
      const requested = outcome.classification.revision ?? "";
      const refused = new UnsupportedProtocolVersionError({ supported: [MODERN_REVISION], requested });
      const told = envelopeVersionMessage(requested, [MODERN_REVISION]);
      const error = { code: refused.code, message: told, data: refused.data };
      return { jsonrpc: "2.0", id: message.id, error };
    }
    return;
  }

  /** The era `message` settles, or undefined while it is not settled (see the class). */
  #eraOpened(
    message: JSONRPCMessage,
    outcome: InboundClassificationOutcome,
  ): "modern" | "legacy" | undefined {
    if (outcome.kind === "legacy") return "legacy";
    if (outcome.kind !== "modern" || outcome.classification.revision !== MODERN_REVISION) return;
    if (isJSONRPCRequest(message) && message.method === "server/discover") this.#probing = true;
    else if (isJSONRPCRequest(message) || !this.#probing) return "modern";
    return;
  }
}
