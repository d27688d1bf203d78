import type { Pack, Scope } from "../catalog/index.js";
import { namedInProse } from "../shared/index.js";
import type { SteeringParts } from "./kept-kinds.js";
import { packLines } from "./pack-lines.js";
import { PackSummary, saidIn } from "./pack-summary.js";
import { phraseWords } from "./phrase-words.js";
import type { PreviewSettings } from "./preview.js";
import { bytes, cut, MAX_PREVIEW_BYTES, roomAfter } from "./room.js";
import { ALSO, skillsByName } from "./skill-names.js";
import type { TermFrequencies } from "./summary.js";
import { namesOf } from "./words.js";

/** A steering line is read on every turn of every conversation: a short phrase of each pack at most. */
const STEERING_PACK_BYTES = 160;

/**
 * A pack whose every skill can be named within this many bytes is named whole, as the instructions' line
 * grows to name every skill: the bench corpus's 13-skill `anthropics` took 200 bytes, and in 160 got
 * pieces of them and words of two descriptions ("creator, mcp-builder, frontend, art, doc, copying…").
 */
const STEERING_NAMED_BYTES = 240;

/**
 * A steering line gives only terms weighing this much: held by a skill's name, or by two descriptions
 * (see Enough.least).
 */
const HELD = 2;

/**
 * A steering line gives a piece of names (`driven` of `subagent-driven-development` and
 * `test-driven-development`) as this many of the names holding it, the shortest: two names for one word
 * took a third of the bench corpus's `superpowers` line, where one leaves room for another skill's name.
 */
const PIECE_NAMES = 1;

/** A pack's summary of terms weighing HELD at least, none of its phrase words, as steering lines give it. */
function heldSummary(pack: Pack, catalog: TermFrequencies): PackSummary {
  return new PackSummary(pack, catalog, phraseWords(pack, catalog), MAX_PREVIEW_BYTES, HELD, PIECE_NAMES);
}

/**
 * A line for CLAUDE.md, AGENTS.md or an agent's system prompt that says when to look for the skills of
 * `scope`: before any task in the areas it names, even a familiar one. Hosts show such files to the model
 * on every turn, whatever they do with a server's own instructions.
 */
export function steeringLine(scope: Scope, catalog: TermFrequencies, settings: PreviewSettings): string {
  const head =
    "Before you start a task in one of these areas, even one you know how to do, call the list_skills " +
    "tool of the skills-mcp server with the task in a few words, then read_skill the best match and " +
    "follow it: these are the organization's own skills (not your built-in ones), and they encode its " +
    "conventions. Areas: ";
  const areas = packLines(scope.packs, roomAfter(head), (pack, share) => {
    // Quoted when it holds more than a name's characters: a pack folder's backtick or bracket read as prose.
    const name = `${namedInProse(pack.name)} (`;
    const described = settings.describedPack(pack);
    const named = bytes(name) + bytes(steeringPartsOf(pack, catalog).names) + 1;
    const most =
      described === undefined && named <= STEERING_NAMED_BYTES
        ? Math.max(named, STEERING_PACK_BYTES)
        : STEERING_PACK_BYTES;
    const room = Math.min(share, most) - bytes(name) - 1;
    const about = described ?? tasksOf(pack, catalog, room);
    return `${name}${cut(about, room)})`;
  });
  return cut(`${head}${areas.join("; ")}.`, MAX_PREVIEW_BYTES - 1);
}

/**
 * What a steering line says of a pack within `room` bytes: its skills by name when they fit, as the
 * instructions give them (a name is a task in a few words), then the telling terms those names leave
 * out; else its groups and telling terms; else, when not even each group with a term fits, the pack's
 * telling terms: the first few groups' names would say what a few of its skills are for (`agents` named
 * 8 of its 50 groups), where terms most of its skills hold say more of it in the same room. Only terms
 * held by a skill's name or by two descriptions are given (HELD): a word of one description (`another` of
 * "loaded into another system") names no task; nor does a word its texts say almost only inside longer
 * phrases (see phraseWords).
 */
function tasksOf(pack: Pack, catalog: TermFrequencies, room: number): string {
  const parts = steeringPartsOf(pack, catalog);
  const { names, also } = parts;
  if (bytes(names) > room) {
    const summary = catalog.kept.heldSummaries.of(pack, () => heldSummary(pack, catalog));
    return summary.groupsFit(room) ? summary.within(room) : cut(parts.packTerms(), room);
  }
  const termsRoom = room - bytes(names) - bytes(ALSO);
  const terms = cut(also, termsRoom);
  return terms === "" ? names : `${names}${ALSO}${terms}`;
}

/**
 * A pack's skills by name, and the terms they leave out within the most room a steering line gives a
 * pack: the same in every scope that holds the pack whole, so worked out once and only cut to each room.
 */
function steeringPartsOf(pack: Pack, catalog: TermFrequencies): SteeringParts {
  return catalog.kept.steeringParts.of(pack, () => {
    const names = skillsByName(pack, Number.POSITIVE_INFINITY, catalog);
    const said = new Set([
      ...saidIn(names, catalog.stems),
      ...namesOf(pack, catalog.stems),
      ...phraseWords(pack, catalog),
    ]);
    const also =
      bytes(names) >= STEERING_PACK_BYTES
        ? ""
        : catalog
            .tellingTerms(pack, undefined, said, {
              bytes: STEERING_PACK_BYTES,
              least: HELD,
              pieceNames: PIECE_NAMES,
            })
            .join(", ");
    let terms: string | undefined;
    // Its groups unnamed, their words are not said: only the pack's name is.
    const packTerms = () => {
      terms ??= catalog
        .tellingTerms(
          pack,
          undefined,
          new Set([...saidIn(pack.name, catalog.stems), ...phraseWords(pack, catalog)]),
          {
            bytes: STEERING_PACK_BYTES,
            least: HELD,
            pieceNames: PIECE_NAMES,
          },
        )
        .join(", ");
      return terms;
    };
    return { names, also, packTerms };
  });
}
