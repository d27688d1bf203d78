import type { Group, Pack } from "../catalog/index.js";
import { namedInProse } from "../shared/index.js";
import type { CutSummary } from "./kept-kinds.js";
import { bytes, cut, MAX_PREVIEW_BYTES } from "./room.js";
import type { TermFrequencies } from "./summary.js";
import { type KeptStems, namesOf, stemsOf } from "./words.js";

/** A pack's summary gives each group with at most this many of its telling terms. */
const MOST_EACH = 3;

/** No words said already: a pack's telling terms as the catalog ranks them. */
export const NOTHING_KNOWN: ReadonlySet<string> = new Set();

/**
 * What a pack's skills are for, told by the pack itself within `room` bytes (see PackSummary), leaving out
 * the words in `said`. With nothing said, what a pack says is the same in every scope that holds it
 * whole (such scopes share the pack): worked out once, only cut to each scope's room.
 */
export function summarizePack(
  pack: Pack,
  catalog: TermFrequencies,
  room: number,
  said: ReadonlySet<string>,
): string {
  if (said.size > 0) return new PackSummary(pack, catalog, said, room, 0).within(room);
  return packSummaryOf(pack, catalog).within(room);
}

/** A pack's summary with nothing said, shared by every scope that holds the pack whole. */
export function packSummaryOf(pack: Pack, catalog: TermFrequencies): CutSummary {
  const made = () => new PackSummary(pack, catalog, NOTHING_KNOWN, MAX_PREVIEW_BYTES, 0);
  return catalog.kept.summaries.of(pack, made);
}

/**
 * A pack's summary for any room within a preview: each group with the terms that tell it apart (as many
 * as fit), then the pack's telling terms (those most of its skills hold and few other packs or groups
 * do), leaving out the words in `said`. Its parts are worked out on first use, each only as far as the
 * largest room it is cut to: a text cut to a room within that reads the same.
 */
export class PackSummary implements CutSummary {
  readonly #known: ReadonlySet<string>;
  readonly #groups: readonly Group[];
  #groupTerms: readonly (readonly string[])[] | undefined;
  /** By how many terms each group shows: the groups so, and the pack's terms they leave out. */
  readonly #texts = new Map<number, { readonly text: string; readonly bytes: number }>();
  readonly #rests = new Map<number, string>();
  #terms: string | undefined;

  constructor(
    private readonly pack: Pack,
    private readonly catalog: TermFrequencies,
    said: ReadonlySet<string>,
    /** The largest room it is cut to. */
    private readonly most: number,
    /** Only terms weighing this much at least (see Enough.least). */
    private readonly least: number,
    /** How many names a piece of names is given as (see Enough.pieceNames). */
    private readonly pieceNames?: number,
  ) {
    this.#known = new Set([...said, ...namesOf(pack, catalog.stems)]);
    this.#groups = [...pack.groups].sort((a, b) => b.skills.length - a.skills.length);
  }

  /** Whether the pack's groups, each with a telling term at least, fit `room`. */
  groupsFit(room: number): boolean {
    return this.#groups.length === 0 || this.#textOf(1).bytes <= room;
  }

  within(room: number): string {
    if (this.#groups.length === 0) {
      this.#terms ??= this.#telling(this.#known).join(", ");
      return cut(this.#terms, room);
    }
    const { groups, terms } = this.parts(room);
    return terms === "" ? groups : cut(`${groups}; ${terms}`, room);
  }

  /**
   * Its groups within `room`, each with as many of its telling terms as fit, and the pack's telling terms
   * that those leave out (none when not even each group with one term fits, and none for a pack with no
   * groups, whose terms `within` gives).
   */
  parts(room: number): { readonly groups: string; readonly terms: string } {
    for (let each = MOST_EACH; each > 0; each -= 1) {
      const { text, bytes: groupBytes } = this.#textOf(each);
      if (groupBytes <= room) return { groups: text, terms: this.#restOf(each) };
    }
    return { groups: cut(this.#groups.map((group) => namedInProse(group.name)).join(", "), room), terms: "" };
  }

  #telling(known: ReadonlySet<string>): string[] {
    return this.catalog.tellingTerms(this.pack, undefined, known, {
      bytes: this.most,
      least: this.least,
      pieceNames: this.pieceNames,
    });
  }

  #textOf(each: number): { readonly text: string; readonly bytes: number } {
    let made = this.#texts.get(each);
    if (made === undefined) {
      this.#groupTerms ??= this.#groups.map((group) =>
        this.catalog.tellingTerms(this.pack, group, this.#known, {
          terms: MOST_EACH,
          least: this.least,
          pieceNames: this.pieceNames,
        }),
      );
      const groupTerms = this.#groupTerms;
      const text = this.#groups
        .map((group, index) => {
          const telling = (groupTerms[index] ?? []).slice(0, each);
          return telling.length > 0
            ? `${namedInProse(group.name)} (${telling.join(", ")})`
            : namedInProse(group.name);
        })
        .join(", ");
      made = { text, bytes: bytes(text) };
      this.#texts.set(each, made);
    }
    return made;
  }

  #restOf(each: number): string {
    let rest = this.#rests.get(each);
    if (rest === undefined) {
      const { text } = this.#textOf(each);
      rest = this.#telling(new Set([...this.#known, ...stemsOf(text, this.catalog.stems)])).join(", ");
      this.#rests.set(each, rest);
    }
    return rest;
  }
}

/** The stems a text says, of its hyphenated compounds (`accessible-forms`) whole and word by word. */
export function saidIn(text: string, stems: KeptStems): Set<string> {
  return new Set([...stemsOf(text, stems), ...stemsOf(text.replace(/-/g, " "), stems)]);
}
