import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/client";
import { quoted } from "../shared/index.js";

/** Of an answer's files, the URIs kept to name: a hostile answer may list thousands. */
const URIS_KEPT = 2;

/**
 * The files a server's `resources/read` answers named instead of the one asked for, by the URI asked. The
 * SDK refuses such an answer saying only that it "returned no contents" for the URI asked, as if the server
 * had sent nothing; a server that answers with another file's URI has a bug to name, or is hostile.
 * One for each connection, as each has its own requests.
 */
export class ReadAnswers {
  /** The URI each read under way asks for, by its request's id. */
  readonly #asked = new Map<RequestId, string>();
  readonly #instead = new Map<string, readonly string[]>();

  /**
   * Watches what `transport` sends and receives: to be called before the client connects it, which keeps
   * a handler already set and calls it first.
   */
  watch(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.#sent(message);
      return send(message, options);
    };
    transport.onmessage = (message) => this.#received(message);
  }

  /**
   * The URIs (the first {@link URIS_KEPT}) the last answer to a read of `uri` named when none was `uri`;
   * empty when it named `uri` or held no file. Forgotten once asked.
   */
  instead(uri: string): readonly string[] {
    const uris = this.#instead.get(uri) ?? [];
    this.#instead.delete(uri);
    return uris;
  }

  #sent(message: JSONRPCMessage): void {
    if (!isJSONRPCRequest(message) || message.method !== "resources/read") return;
    const uri = message.params?.uri;
    if (typeof uri === "string") this.#asked.set(message.id, uri);
  }

  #received(message: JSONRPCMessage): void {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    if (message.id === undefined) return;
    const uri = this.#asked.get(message.id);
    if (uri === undefined) return;
    this.#asked.delete(message.id);
    const named = isJSONRPCResultResponse(message) ? urisOf(message.result.contents) : [];
    if (named.length === 0 || named.includes(uri)) this.#instead.delete(uri);
    else this.#instead.set(uri, named.slice(0, URIS_KEPT));
  }
}

/**
 * What a read of `asked` answered with `instead` is, in words: both URIs quoted, as server text is. Said
 * alike for a skill's own file and for a pack file it cites, each then saying what was not written.
 */
export function otherFileAnswered(asked: string, instead: readonly string[]): string {
  const others = instead.map((uri) => quoted(uri)).join(", ");
  const what = instead.length === 1 ? "another file's URI" : "other files' URIs";
  return `the server answered the read of ${quoted(asked)} with ${what}, ${others}`;
}

/** The `uri` of each file in a read's `contents`, as far as it is one. */
function urisOf(contents: unknown): string[] {
  if (!Array.isArray(contents)) return [];
  const uris: string[] = [];
  for (const item of contents) {
    if (typeof item === "object" && item !== null && "uri" in item && typeof item.uri === "string") {
      uris.push(item.uri);
    }
  }
  return uris;
}
