import { stopwords } from "@orama/stopwords/english";
import porter2 from "wink-porter2-stemmer";

/**
 * Words that carry no meaning of their own in a request ("how", "my", "should", "don't"): the Snowball
 * English stop list. Weighting by rarity does not take care of them, since request words are often rare in
 * skill text and would score as if meaningful.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(stopwords);

/** Letters and digits, with inner apostrophes (`don't`), joined by single hyphens or underscores. */
const COMPOUND = /[\p{L}\p{N}]+(?:'[\p{L}]+)*(?:[-_][\p{L}\p{N}]+(?:'[\p{L}]+)*)*/gu;

/**
 * The words of a text as search sees them, before stemming. Case is folded, stop words and single letters
 * dropped, possessives and apostrophes removed (`customer's` → customer). A compound yields its parts, each
 * pair of neighbouring parts joined, and the whole joined, so a request for `sub-workflow`, `subworkflows`
 * or `code nodes` reaches `n8n-subworkflows-official` or `n8n-code-nodes`.
 */
export function words(text: string): string[] {
  const found: string[] = [];
  for (const compound of text.toLowerCase().replace(/’/g, "'").match(COMPOUND) ?? []) {
    if (!compound.includes("-") && !compound.includes("_")) {
      keep(found, compound);
      continue;
    }
    const parts = compound.split(/[-_]/);
    for (const part of parts) keep(found, part);
    for (let i = 1; i < parts.length; i++) keep(found, `${parts[i - 1]}${parts[i]}`);
    if (parts.length > 2) keep(found, parts.join(""));
  }
  return found;
}

function keep(found: string[], word: string): void {
  if (STOP_WORDS.has(word)) return;
  const bare = word.includes("'") ? word.replace(/'s$/, "").replace(/'/g, "") : word;
  if (bare.length > 1 && !STOP_WORDS.has(bare)) found.push(bare);
}

/** Porter2 (Snowball English) stemming: `nodes`/`node`, `debugging`/`debug`, `deploy`/`deployment`. */
export function stem(word: string): string {
  return porter2(word);
}
