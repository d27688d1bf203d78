/**
 * A description that claims every task ("Use for ALL tasks", "always use this skill first", "use whenever
 * the user asks anything"): a model picks skills by their descriptions, so such a skill is read before
 * whatever the user asked, every other skill's routing hijacked. A claim scoped to a domain ("any Penpot
 * task", "anything multi-step") is what descriptions are for, and is left alone.
 *
 * The description is read once, word by word, keeping only the last few words: linear in its length.
 */

/** Words that make a sentence say when to use the skill; a claim counts only after one. */
const TRIGGERS = new Set([
  "use",
  "used",
  "using",
  "invoke",
  "invoked",
  "load",
  "loaded",
  "read",
  "apply",
  "applies",
  "call",
  "consult",
  "activate",
  "trigger",
  "triggers",
]);
const QUANTIFIERS = new Set(["all", "any", "every", "each"]);
/**
 * Words a claimed task follows (`for all tasks`, `before any response`, `starting any conversation`): after
 * a noun (`loaded by the hook every session`) a quantifier tells how often, not which tasks.
 */
const LEADS = new Set([
  "for",
  "on",
  "before",
  "in",
  "with",
  "to",
  "at",
  "during",
  "after",
  "across",
  "throughout",
  "into",
  "start",
  "starting",
  "beginning",
  "handling",
  "answering",
  "processing",
  // `before finishing any response`, `when writing any reply`: every one the agent gives.
  "finishing",
  "completing",
  "ending",
  "sending",
  "giving",
  "writing",
  "producing",
  "generating",
]);
/** Words between a quantifier and its noun that do not narrow it (`any kind of task`, `every single request`). */
const FILLERS = new Set([
  "single",
  "new",
  "user",
  "user's",
  "incoming",
  "other",
  "possible",
  "given",
  "kind",
  "kinds",
  "type",
  "types",
  "sort",
  "sorts",
  "of",
  "the",
  "your",
  "a",
]);
/** What a user brings, named with no domain. */
const TASKS = new Set([
  "task",
  "tasks",
  "request",
  "requests",
  "conversation",
  "conversations",
  "question",
  "questions",
  "prompt",
  "prompts",
  "message",
  "messages",
  "response",
  "responses",
  "reply",
  "replies",
  "answer",
  "answers",
  "query",
  "queries",
  "turn",
  "turns",
  "interaction",
  "interactions",
  "session",
  "sessions",
  "chat",
  "chats",
  "input",
  "inputs",
  "topic",
  "topics",
  "situation",
  "situations",
  "work",
  "job",
  "jobs",
  "problem",
  "problems",
  "times",
  "cases",
  "action",
  "actions",
  "thing",
  "things",
  // `before any other skill`: ahead of every one.
  "skill",
  "skills",
]);
const EVERYTHING = new Set(["anything", "everything"]);
/** Verbs of a user bringing something: after one, `a question` and `something` claim every one. */
const ASKING = new Set([
  "asks",
  "ask",
  "says",
  "say",
  "sends",
  "send",
  "types",
  "type",
  "writes",
  "requests",
  "makes",
]);
/** Words after a claim that do not narrow it: it reaches the end of its clause. */
const OPEN_WORDS = new Set(["including", "whatsoever", "regardless", "whatever", "even", "else"]);
/** Marks that end a clause (a dash between spaces too); `.`, `!`, `?` and `;` also end the sentence. */
const CLAUSE_END = /^[.,;:!?()[\]"“”–—-]$/u;
const SENTENCE_END = /^[.!?;]$/u;
/** Emphasis and code marks (`Use for **ALL** tasks`): the model reads the words between them as written. */
const MARKUP = /^[*_~`]$/u;
const TOKENS = /[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;
/**
 * The most words a claim looks at: the word before a quantifier, the quantifier, three fillers, the noun
 * and `first`.
 */
const WINDOW = 7;

/**
 * How many of the last of `recent` (the words of a clause so far, `WINDOW` at most) make a claim on every
 * task, `first` at the end included; 0 when they make none, or when no word of the sentence so far
 * (`triggered`) asks for the skill to be used.
 */
function claimLength(recent: readonly string[], triggered: boolean): number {
  if (!triggered) return 0;
  // A claim may end in `first` (`use this skill first`, `for any task first`): read it without.
  const skip = (recent.at(-1) ?? "").toLowerCase() === "first" ? 1 : 0;
  const word = (back: number) => (recent[recent.length - back - skip] ?? "").toLowerCase();
  const last = word(1);
  // Not the first word of its clause: the last item of a list (`Slack, Gmail, anything`) is in its scope.
  if (EVERYTHING.has(last)) return word(2) === "" ? 0 : 1 + skip;
  if (last === "something" && ASKING.has(word(2))) return 1 + skip;
  if (last === "what" && word(2) === "matter" && word(3) === "no") return 3 + skip;
  // `use`, `use it`, `use this skill`: a claim when always, or first, for nothing in particular.
  const use = TRIGGERS.has(last)
    ? 1
    : ["it", "me", "this"].includes(last) && TRIGGERS.has(word(2))
      ? 2
      : last === "skill" && word(2) === "this" && TRIGGERS.has(word(3))
        ? 3
        : 0;
  if (use > 0) {
    const always = word(use + 1) === "always" ? 1 : 0;
    return always + skip > 0 ? use + always + skip : 0;
  }
  if (!TASKS.has(last)) return 0;
  for (let back = 2; back <= 5; back++) {
    const before = word(back);
    const lead = word(back + 1);
    if (QUANTIFIERS.has(before)) return LEADS.has(lead) || ASKING.has(lead) ? back + skip : 0;
    // `regardless of the task`, `whatever the task`, `no matter the request`.
    if (before === "regardless" || before === "whatever" || (before === "matter" && lead === "no")) {
      return back + skip;
    }
    if ((before === "a" || before === "an") && ASKING.has(lead)) return back + skip;
    // `all tasks and questions`: one claim of two nouns.
    if (!FILLERS.has(before) && !TASKS.has(before) && before !== "and" && before !== "or") return 0;
  }
  return 0;
}

/** The words of the first claim on every task in `description` (`use for ALL tasks`), or undefined. */
export function claimOfEveryTask(description: string): string | undefined {
  const recent: string[] = [];
  let triggered = false;
  // With the word before it, for the finding to read as the description does (`asks anything`).
  const found = (words: number) => recent.slice(-words - 1).join(" ");
  for (const [token] of description.matchAll(TOKENS)) {
    if (MARKUP.test(token)) continue;
    const word = token.toLowerCase();
    if (CLAUSE_END.test(token) || OPEN_WORDS.has(word)) {
      const words = claimLength(recent, triggered);
      if (words > 0) return found(words);
    }
    if (CLAUSE_END.test(token)) {
      // A claim lies within one clause; the sentence's trigger holds for all of its clauses.
      if (SENTENCE_END.test(token)) triggered = false;
      recent.length = 0;
      continue;
    }
    if (TRIGGERS.has(word)) triggered = true;
    recent.push(token);
    if (recent.length > WINDOW) recent.shift();
  }
  const words = claimLength(recent, triggered);
  return words > 0 ? found(words) : undefined;
}
