/**
 * Variables keeping a download, as a string or a script block made of one, followed through the variables
 * they are handed to (`$b = [scriptblock]::Create($s)`, `y="$x"`), and where each is last run as code.
 */
import { commentReader } from "./comment-reader.js";
import type { HashComments } from "./comments.js";
import { powershellHandOvers, shellHandOvers } from "./hand-overs.js";
import type { KeptRuns } from "./kept-runs.js";
import {
  KEPT_STRING,
  POWERSHELL_STRING_RUN,
  runName,
  SHELL_STRING_RUN,
  variableKey,
} from "./kept-strings.js";
import { BLOCK_RUN, KEPT_BLOCK } from "./script-blocks.js";

/** A variable handed to another at an offset: a run of the receiver after it runs what the giver holds. */
interface HandOver {
  readonly giver: string;
  readonly receiver: string;
  readonly at: number;
  /** Whether the receiver is a script block made of the giver's string, run as a block, not a string. */
  readonly made: boolean;
}

/**
 * How many times the hand-overs are gone through for runs of their receivers. Each pass goes through them
 * last first, so that a chain written in the order a script runs it (`$s = irm …; $b = …($s); $c = $b; &
 * $c`) is followed whole in the first, however long; a hand-over written again after a later one (each is
 * kept once, at its first place) needs one more pass. The passes stop when one finds nothing new; at 4 a
 * hostile text of many such links costs 4 readings of its hand-overs, not one a link.
 */
const PASSES = 4;

/**
 * The {@link KeptRuns} of `text`, read once a text, when a line with a download first keeps one: one pass
 * for the variables keeping one, one for those handed them later in the text (in text order: a variable
 * handed one before it keeps one holds none), one for each kind of run, outside comments (`# iex $s` runs
 * nothing), so that only kept variables are held.
 */
export function keptRuns(text: string, comments: HashComments): KeptRuns {
  const kept = new Map<string, number>();
  for (const match of text.matchAll(KEPT_STRING)) keptAt(kept, variableKey(match[1], match[2]), match.index);
  for (const match of text.matchAll(KEPT_BLOCK)) keptAt(kept, variableKey(match[1], undefined), match.index);
  const handOvers = handedOn(text, kept, comments);
  const strings = new Map<string, number>();
  const blocks = new Map<string, number>();
  const powershell = (name: string | undefined) => variableKey(name, undefined);
  const shell = (name: string | undefined) => variableKey(undefined, name);
  lastRuns(text, POWERSHELL_STRING_RUN, powershell, kept, strings, commentReader(text, comments));
  lastRuns(text, SHELL_STRING_RUN, shell, kept, strings, commentReader(text, comments));
  lastRuns(text, BLOCK_RUN, powershell, kept, blocks, commentReader(text, comments));
  followHandOvers(handOvers, strings, blocks);
  return { strings, blocks };
}

/** Records in `kept` that the variable of `key` keeps a download from `at` on, unless it did before. */
function keptAt(kept: Map<string, number>, key: string, at: number): void {
  if (at < (kept.get(key) ?? Number.POSITIVE_INFINITY)) kept.set(key, at);
}

/**
 * The hand-overs of `text` whose giver keeps a download when met (the receiver then keeps one from there
 * on, in `kept`), each once, at its first place, outside comments, wherever the value names the giver
 * (`y="set -e; $x"`, `$t = "x; $s"`).
 */
function handedOn(text: string, kept: Map<string, number>, comments: HashComments): HandOver[] {
  const found = new Map<string, HandOver>();
  const handOver = (giver: string, receiver: string, at: number, made: boolean) => {
    if ((kept.get(giver) ?? Number.POSITIVE_INFINITY) > at) return;
    keptAt(kept, receiver, at);
    const pair = `${made} ${giver} ${receiver}`;
    if (!found.has(pair)) found.set(pair, { giver, receiver, at, made });
  };
  // PowerShell's and a shell's variables are apart (`ps s`, `sh x`): each kind is read in the text's order,
  // with a comment reader of its own, asked in that order.
  const inPowerShellComment = commentReader(text, comments);
  for (const { giver, receiver, at, made } of powershellHandOvers(text)) {
    if (!inPowerShellComment(at))
      handOver(variableKey(giver, undefined), variableKey(receiver, undefined), at, made);
  }
  const inShellComment = commentReader(text, comments);
  for (const { giver, receiver, at } of shellHandOvers(text)) {
    if (!inShellComment(at))
      handOver(variableKey(undefined, giver), variableKey(undefined, receiver), at, false);
  }
  return [...found.values()];
}

/** Records in `runs` the last run of each kept variable that `pattern`'s matches name, outside comments. */
function lastRuns(
  text: string,
  pattern: RegExp,
  key: (name: string | undefined) => string,
  kept: ReadonlyMap<string, number>,
  runs: Map<string, number>,
  inComment: (index: number) => boolean,
): void {
  for (const match of text.matchAll(pattern)) {
    const name = key(runName(match));
    if (kept.has(name) && !inComment(match.index)) runs.set(name, match.index);
  }
}

/**
 * Adds to each giver's runs those of its receivers after the hand-over, {@link PASSES} times at most: a
 * copy's runs of either kind, a block made of a string's runs as a block.
 */
function followHandOvers(
  handOvers: readonly HandOver[],
  strings: Map<string, number>,
  blocks: Map<string, number>,
): void {
  for (let pass = 0; pass < PASSES; pass++) {
    let changed = false;
    for (let index = handOvers.length - 1; index >= 0; index--) {
      const handOver = handOvers[index];
      if (handOver === undefined) continue;
      const { giver, receiver, at, made } = handOver;
      if (made) {
        changed = later(strings, giver, blocks.get(receiver), at) || changed;
      } else {
        changed = later(strings, giver, strings.get(receiver), at) || changed;
        changed = later(blocks, giver, blocks.get(receiver), at) || changed;
      }
    }
    if (!changed) return;
  }
}

/** Sets `runs` of `key` to `run` when it comes after the hand-over at `at` and after the one known; whether it did. */
function later(runs: Map<string, number>, key: string, run: number | undefined, at: number): boolean {
  if (run === undefined || run <= at || run <= (runs.get(key) ?? -1)) return false;
  runs.set(key, run);
  return true;
}
