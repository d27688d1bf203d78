import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  type MessageClassification,
  PerRequestHTTPServerTransport,
  type ProtocolEra,
} from "@modelcontextprotocol/server";
import { MODERN_REVISION } from "../../mcp/index.js";
import { RequestOrigins } from "../request-origins.js";

/** The classification a connection's requests carry, by era: the SDK checks it against its server's. */
const CLASSIFICATION: Readonly<Record<ProtocolEra, MessageClassification>> = {
  legacy: { era: "legacy" },
  modern: { era: "modern", revision: MODERN_REVISION },
};

/** The server's answer to a request, and whether it refused it before any of its handlers ran. */
interface Exchanged {
  readonly message: JSONRPCMessage;
  readonly refused: boolean;
}

/**
 * A connection to one server of the SDK that carries any number of requests at once, each under an id of
 * its own: clients number their requests each from 1, and the server tells the requests in flight apart by
 * their ids. The ids come from the endpoint's RequestOrigins, which tells the handler's call by the id
 * (`ctx.mcpReq.id`, the id the request was delivered under). Notifications on the way, which a JSON
 * answer has no room for, are dropped.
 *
 * Assumption: the SDK binds a server to the protocol revision of the `PerRequestHTTPServerTransport` it
 * connects it to, when the server lists that revision among those it supports (its documented way; the
 * only one its public exports offer outside its own entries). So this connection is one, made with its
 * era's classification; it never uses that class's exchange of one Response.
 *
 * Assumption: a server answers each request from its handlers and the request alone: what one request did
 * leaves nothing that changes the answer to the next, but the 2025 handshake (`initialize` negotiates a
 * version and keeps the client's capabilities), which a connection shared between requests must not carry.
 *
 * Assumption: a server refuses a request it has no handler for, that belongs to another era, or whose
 * 2026-07-28 envelope it finds wrong, while the message is being delivered, and runs a handler only after
 * that (the SDK defers handlers to a microtask): so an answer sent during the delivery is a refusal, whose
 * HTTP status the SDK's entry sets itself.
 */
export class ServerConnection extends PerRequestHTTPServerTransport {
  readonly #classification: MessageClassification;
  readonly #waiting = new Map<number, (answered: Exchanged) => void>();
  readonly #origins: RequestOrigins;
  #delivering: number | undefined;

  private constructor(era: ProtocolEra, origins: RequestOrigins) {
    const classification = CLASSIFICATION[era];
    super({ classification });
    this.#classification = classification;
    this.#origins = origins;
  }

  /** `server`, connected to a new connection of `era`, delivering under ids from `origins`. */
  static async open(
    server: McpServer,
    era: ProtocolEra,
    origins = new RequestOrigins(),
  ): Promise<ServerConnection> {
    const connection = new ServerConnection(era, origins);
    await server.connect(connection);
    return connection;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || "method" in message || typeof message.id !== "number") return;
    const answered = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    this.#origins.answered(message.id);
    answered?.({ message, refused: message.id === this.#delivering });
  }

  /** The server's answer to `request`, under the request's own id; `reqId` is its HTTP request's. */
  exchange(request: JSONRPCRequest, reqId?: string): Promise<Exchanged> {
    const id = this.#origins.deliver(reqId);
    return new Promise((resolve) => {
      this.#waiting.set(id, ({ message, refused }) =>
        resolve({ message: { ...message, id: request.id }, refused }),
      );
      this.#delivering = id;
      try {
        this.onmessage?.({ ...request, id }, { classification: this.#classification });
      } catch (error) {
        // Rejects the exchange; nothing will answer it.
        this.#waiting.delete(id);
        this.#origins.answered(id);
        throw error;
      } finally {
        this.#delivering = undefined;
      }
    });
  }
}
