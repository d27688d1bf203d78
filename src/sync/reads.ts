/**
 * Fetching: what the run reads from the server, within its bounds on requests at once and on the bytes of
 * answers held at once, and the pack files read, shared by the skills that cite them.
 */

import type { Client } from "@modelcontextprotocol/client";
import { ProtocolError } from "@modelcontextprotocol/client";
import type { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { ByteBudget } from "../budget/index.js";
import { MAX_ANSWER_BYTES, withAnswerLimit } from "./connection.js";
import type { ReadAnswers } from "./read-answers.js";

/** What one run reads once for all skills: which URIs are skills, and the pack files already read. */
export interface DownloadContext {
  /** The server's URL: a read that fails through the environment's proxy names the proxy it picks. */
  readonly server: URL;
  readonly client: Client;
  readonly skills: SkillsClient;
  /** What the connection's reads were answered with instead of the file asked for. */
  readonly readAnswers: ReadAnswers;
  /** The root folder URI of every skill the server lists: a file below one is another skill's, not a pack file. */
  readonly skillRoots: ReadonlySet<string>;
  /** Pack file reads by URI, shared by the skills that cite the same file. */
  readonly packReads: PackReads;
}

/**
 * A pack file as read: its bytes, that the server serves nothing there, or the URIs (the first few) of the
 * other files its answer held instead: a server's bug or a hostile one, to be named, not taken for none.
 */
export type PackRead =
  | { readonly bytes: Uint8Array }
  | { readonly missing: true }
  | { readonly instead: readonly string[] };

/**
 * A pack file looked up within a room: as read, or `over` when its answer went past those bytes and was
 * read no further, nor kept.
 */
export type PackLookup = PackRead | { readonly over: number };

/**
 * A file a skill cites could not be read: no answer came (a cut connection, a proxy's 502, a timeout), so
 * whether the server serves it, and what, is unknown. An error the server answers with means it serves
 * nothing there.
 */
export class CitedFileUnreadable extends Error {
  override name = "CitedFileUnreadable";
}

/** Bytes of pack file reads kept for the skills that cite the same file. */
const PACK_READS_BYTES = 32 * 1024 * 1024;

/**
 * Bytes of answers read at once, for every read of the run together: room for the largest answer sync
 * reads, so that 8 reads at once hold about what one large read holds, not 8 times that.
 */
const ANSWER_BUDGET_BYTES = MAX_ANSWER_BYTES;
/** What a pack file's answer is given room for first: pack files carry no size in the extension. */
export const PACK_ANSWER_BYTES = 1024 * 1024;
/** Room in an answer for its JSON-RPC envelope, beyond a file's bytes. */
export const ANSWER_ENVELOPE_BYTES = 64 * 1024;

/**
 * The pack files read lately, by URI, up to `maxBytes` (the oldest go first): a server that answers every
 * citation with a large file cannot make sync hold all of them for the whole run. Also the run's reads
 * under way: skills checked or downloaded at once that cite the same file share one request, no more than
 * PARALLEL_READS are sent at once, and their answers share ANSWER_BUDGET_BYTES, however many skills are
 * checked or downloaded together.
 */
export class PackReads {
  readonly #reads = new Map<string, PackRead>();
  readonly #underWay = new Map<string, Promise<PackLookup>>();
  readonly #slots = new Slots(PARALLEL_READS);
  readonly #answers = new ByteBudget(ANSWER_BUDGET_BYTES);
  #bytes = 0;

  constructor(readonly maxBytes = PACK_READS_BYTES) {}

  /**
   * `send` (a request to the server) once a slot is free and its answer, of up to `expected` bytes, fits
   * in the budget of answers read at once: an answer past that is not read, and the request is sent again
   * with room for the largest answer (alone, if need be). A server cannot make the reads at once hold more
   * than the budget by answering more than it said, only cost a request more.
   */
  send<T>(expected: number, send: () => Promise<T>): Promise<T> {
    return this.#slots.run(async () => {
      const room = Math.min(expected, MAX_ANSWER_BYTES);
      const first = await this.#holding(room, () => withAnswerLimit(room, send));
      return "answer" in first ? first.answer : this.#holding(MAX_ANSWER_BYTES, send);
    });
  }

  async #holding<T>(bytes: number, work: () => Promise<T>): Promise<T> {
    const giveBack = await this.#answers.take(bytes);
    try {
      return await work();
    } finally {
      giveBack();
    }
  }

  /**
   * The read of `uri` kept, or the one under way when it was given as much room, or else `load` sent
   * with room for `room` bytes of answer (1 MiB first, and then, when the answer passed that, `room`): a
   * pack file's answer is never read past the room of the skill that cites it, whatever the server sends.
   * What was read whole is kept.
   */
  async read(uri: string, room: number, load: () => Promise<PackRead>): Promise<PackLookup> {
    const kept = this.get(uri);
    if (kept !== undefined) return kept;
    const pending = this.#underWay.get(uri);
    if (pending !== undefined) {
      const shared = await pending;
      if (!("over" in shared) || shared.over >= room) return shared;
    }
    const started = this.#slots.run(async (): Promise<PackLookup> => {
      let within = Math.min(room, PACK_ANSWER_BYTES, MAX_ANSWER_BYTES);
      let answer = await this.#holding(within, () => withAnswerLimit(within, load));
      if ("passed" in answer && room > within) {
        within = Math.min(room, MAX_ANSWER_BYTES);
        answer = await this.#holding(within, () => withAnswerLimit(within, load));
      }
      if ("passed" in answer) return { over: within };
      this.keep(uri, answer.answer);
      return answer.answer;
    });
    this.#underWay.set(uri, started);
    try {
      return await started;
    } finally {
      if (this.#underWay.get(uri) === started) this.#underWay.delete(uri);
    }
  }

  /** The bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get(uri: string): PackRead | undefined {
    const read = this.#reads.get(uri);
    if (read !== undefined) {
      this.#reads.delete(uri);
      this.#reads.set(uri, read);
    }
    return read;
  }

  keep(uri: string, read: PackRead): void {
    const size = sizeOf(uri, read);
    if (size > this.maxBytes || this.#reads.has(uri)) return;
    this.#reads.set(uri, read);
    this.#bytes += size;
    for (const [oldest, old] of this.#reads) {
      if (this.#bytes <= this.maxBytes) break;
      this.#reads.delete(oldest);
      this.#bytes -= sizeOf(oldest, old);
    }
  }
}

function sizeOf(uri: string, read: PackRead): number {
  if ("bytes" in read) return uri.length + read.bytes.length;
  if ("instead" in read) return read.instead.reduce((sum, other) => sum + other.length, uri.length);
  return uri.length;
}

/** Files read from the server at once, for the whole run. */
export const PARALLEL_READS = 8;

/**
 * A pack file at `uri`, its answer read no further than `room` bytes, read once while it stays in
 * `packReads`; a server error means it serves nothing there.
 */
export function readPackFile(uri: string, room: number, context: DownloadContext): Promise<PackLookup> {
  return context.packReads.read(uri, room, async () => {
    try {
      const result = await context.client.readResource({ uri });
      const content = result.contents.find((item) => new URL(item.uri).href === uri);
      if (content === undefined) {
        const instead = context.readAnswers.instead(uri);
        return instead.length > 0 ? { instead } : { missing: true };
      }
      return "text" in content
        ? { bytes: Buffer.from(content.text, "utf8") }
        : { bytes: Buffer.from(content.blob, "base64") };
    } catch (error) {
      if (!(error instanceof ProtocolError))
        throw new CitedFileUnreadable(`reading ${uri}, a file it cites, failed`, { cause: error });
      return { missing: true };
    }
  });
}

/** At most `size` pieces of work at once; the others wait their turn, first come first served. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.#waiting.shift();
      if (next === undefined) this.#free += 1;
      else next();
    }
  }
}
