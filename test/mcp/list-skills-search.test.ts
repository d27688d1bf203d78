import { describe, expect, it } from "vitest";
import { call, serveTree } from "../helpers/server.js";
import { skillMd } from "../helpers/skill-tree.js";

/** Twelve skills about reports (one named for them), and one that is not. */
const TREE = {
  ...Object.fromEntries(
    Array.from({ length: 11 }, (_, i) => [
      `office/task-${String(i).padStart(2, "0")}/SKILL.md`,
      // Every other one longer: its words weigh less, so that no more than ten tie (see SearchResult.vague).
      skillMd(
        `task-${String(i).padStart(2, "0")}`,
        `Task ${i} that ends with a report${i % 2 ? ", signed and dated" : ""}.`,
      ),
    ]),
  ),
  "office/report-builder/SKILL.md": skillMd("report-builder", "Build the weekly report from tickets."),
  "garden/prune-roses/SKILL.md": skillMd("prune-roses", "Cut back roses in late winter."),
};

const served = serveTree(TREE);
/** The same, beside fourteen skills that say nothing of tasks or reports: they are not half the skills. */
const withKitchen = serveTree({
  ...TREE,
  ...Object.fromEntries(
    Array.from({ length: 14 }, (_, i) => [
      `kitchen/recipe-${String(i).padStart(2, "0")}/SKILL.md`,
      skillMd(`recipe-${String(i).padStart(2, "0")}`, `Cook dinner number ${i} in one pot.`),
    ]),
  ),
});

/** The same, with a copy of each task in a second pack (the same name and description). */
const withCopies = serveTree({
  ...TREE,
  ...Object.fromEntries(
    Object.entries(TREE)
      .filter(([file]) => file.startsWith("office/task-"))
      .map(([file, text]) => [file.replace("office/", "annex/"), text]),
  ),
});

/** Skills holding three words one typing mistake from `contant`. */
const words = serveTree({
  "web/content-writer/SKILL.md": skillMd("content-writer", "Write content for landing pages."),
  "science/physics-constants/SKILL.md": skillMd("physics-constants", "Look up a physical constant."),
  "web/contact-form/SKILL.md": skillMd("contact-form", "Build a contact form."),
  "office/budget-review/SKILL.md": skillMd(
    "budget-review",
    "Review a team's yearly budget line by line.",
    `# Budget review\n\n${"Go through each line of the budget and note what changed since last year. ".repeat(8)}` +
      "The figures may come from a spreadsheet.\n",
  ),
});

describe("list_skills with query", () => {
  // A tail of faint matches costs the model tokens and misleads it: the tasks say "report" only in passing.
  it("leaves out matches scoring under 0.4 of the first one's, saying the rest match only in part", async () => {
    const { text } = await call(served.client, "list_skills", { query: "weekly reports" });
    expect(text.split("\n")).toEqual([
      "report-builder: Build the weekly report from tickets.",
      "… other skills matched only in part: add words to the query, or narrow with pack.",
      'Next: read_skill(skill="<name>").',
    ]);
  });

  it("counts the strong matches left out, those scoring at least half the first one's", async () => {
    const { text } = await call(withKitchen.client, "list_skills", {
      query: "a task that ends with a report",
    });
    const lines = text.split("\n");
    expect(lines.slice(0, 10).every((line) => /^task-\d\d: /.test(line))).toBe(true);
    expect(lines.slice(10)).toEqual([
      "… 1 more skill matched nearly as well: add words to the query, or narrow with pack.",
      'Next: read_skill(skill="<name>").',
    ]);
  });

  // Its words are in twelve of the thirteen skills: the ten shown were a sample, not an answer.
  it("says a request is too vague when its every word is in half the skills and many match alike", async () => {
    const vague = await call(served.client, "list_skills", { query: "a task that ends with a report" });
    expect(vague).toEqual({
      isError: false,
      text:
        '"a task that ends with a report" is too vague to choose by: each of its words is in half the skills ' +
        "or more, and 11 skills match it about as well. Describe the task in more words, or call list_packs to browse.",
    });
    const inPack = await call(served.client, "list_skills", { query: "task report", pack: "office" });
    expect(inPack.text).toBe(
      '"task report" is too vague to choose by: each of its words is in half the skills or more, and 11 ' +
        'skills in "office" match it about as well. Describe the task in more words, or browse with ' +
        'list_skills(pack="office").',
    );
  });

  // Copied into a second pack, the eleven tasks were counted as 22 skills matching alike.
  it("counts each skill once, however many packs hold a copy, when a request is too vague", async () => {
    const { text } = await call(withCopies.client, "list_skills", {
      query: "a task that ends with a report",
    });
    expect(text).toBe(
      '"a task that ends with a report" is too vague to choose by: each of its words is in half the skills ' +
        "or more, and 11 skills match it about as well. Describe the task in more words, or call list_packs to browse.",
    );
  });

  // Eleven tasks alike beside the kitchen: "task" and "report" are not in half the skills, yet ten of the
  // eleven were listed as if they answered the request.
  it("says a request is too vague when more skills match it alike than can be shown", async () => {
    const alike = await call(withKitchen.client, "list_skills", { query: "task" });
    expect(alike).toEqual({
      isError: false,
      text:
        '"task" is too vague to choose by: 11 skills match it about as well, more of them alike than can be ' +
        "shown. Describe the task in more words, or call list_packs to browse.",
    });
  });

  it("shows every match with no hint when ten or fewer match", async () => {
    const { text } = await call(served.client, "list_skills", { query: "roses" });
    expect(text.split("\n")).toEqual([
      "prune-roses: Cut back roses in late winter.",
      'Next: read_skill(skill="<name>").',
    ]);
  });

  it("reads a word no skill holds as the word one typing mistake away, and says so first", async () => {
    const { text } = await call(served.client, "list_skills", { query: "prune the rsoes" });
    expect(text.split("\n")).toEqual([
      'Read "rsoes" as "roses".',
      "prune-roses: Cut back roses in late winter.",
      'Next: read_skill(skill="<name>").',
    ]);
  });

  // `contant` is one mistake from content, constant and contact, and alone nothing tells which: the
  // answer said only that no skill matches, and the model could not tell a typing mistake from a gap.
  it("names the words a mistyped word may be when nothing in the request tells which", async () => {
    expect((await call(words.client, "list_skills", { query: "contant" })).text).toBe(
      'No skill matches "contant". "contant" may be "constant", "contact" or "content". Describe the task ' +
        "in other words, or call list_packs to browse.",
    );
    expect((await call(words.client, "list_skills", { query: "contant", pack: "web" })).text).toBe(
      'No skill in "web" matches "contant". "contant" may be "contact" or "content". Describe the task in ' +
        'other words, search every pack by leaving out pack, or browse with list_skills(pack="web").',
    );
  });

  // `spreadsheet` alone matches a skill in passing, too faintly to show: the answer said only that no
  // skill matches, though `contant` alone named what it may be.
  it("names what a mistyped word may be when the rest of the request matches nothing shown", async () => {
    expect((await call(words.client, "list_skills", { query: "contant spreadsheet" })).text).toBe(
      'No skill matches "contant spreadsheet". "contant" may be "constant", "contact" or "content". ' +
        "Describe the task in other words, or call list_packs to browse.",
    );
    expect((await call(words.client, "list_skills", { query: "contcat spreadsheet" })).text).toBe(
      'No skill matches "contcat spreadsheet". "contcat" may be "contact". Describe the task in other ' +
        "words, or call list_packs to browse.",
    );
  });

  it("searches within the pack argument", async () => {
    const { text } = await call(served.client, "list_skills", { query: "cut back report", pack: "garden" });
    expect(text).toMatch(/^prune-roses: .*\nNext:/);
  });

  it("never finds a skill outside the client's ceiling", async () => {
    const gardener = await served.server.connect({ headers: { "X-Skill-Pack": "garden" } });
    expect((await call(gardener, "list_skills", { query: "weekly report roses" })).text).toMatch(
      /^prune-roses: .*\nNext:/,
    );
    expect((await call(gardener, "list_skills", { query: "weekly report" })).text).toMatch(
      /^No skill matches/,
    );
    expect((await call(gardener, "read_skill", { skill: "report-bilder" })).text).not.toContain(
      "report-builder",
    );
  });

  it("says when nothing matches, and what to do next", async () => {
    const nowhere = await call(served.client, "list_skills", { query: "quantum chromodynamics" });
    expect(nowhere).toEqual({
      isError: false,
      text: 'No skill matches "quantum chromodynamics". Describe the task in other words, or call list_packs to browse.',
    });
    const inPack = await call(served.client, "list_skills", { query: "roses", pack: "office" });
    expect(inPack.text).toBe(
      'No skill in "office" matches "roses". Describe the task in other words, search every pack by leaving ' +
        'out pack, or browse with list_skills(pack="office").',
    );
  });

  // A pasted hash or sequence: `ß` repeated (read on the Unicode path) was answered as too vague.
  it("says nothing matches a word longer than any, in any script", async () => {
    for (const letter of ["a", "ß", "e\u0301"]) {
      const { text } = await call(served.client, "list_skills", { query: letter.repeat(300) });
      expect(text).toMatch(/^No skill matches "/);
    }
  });

  it("lists alphabetically without a query", async () => {
    const { text } = await call(served.client, "list_skills", {});
    const names = text
      .split("\n")
      .slice(0, -1)
      .map((line) => line.slice(0, line.indexOf(":")));
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(13);
  });
});

describe("list_skills reading a mistyped word", () => {
  const own = serveTree({
    "garden/prune-roses/SKILL.md": skillMd("prune-roses", "Cut back roses in late winter."),
    "office/sales-trends/SKILL.md": skillMd("sales-trends", "Report when revenue rises."),
    "office/rose-sales/SKILL.md": skillMd("rose-sales", "Report the roses sold, and cut back stock."),
  });

  it("takes a word some skill holds as written, even beyond the pack asked for or the ceiling", async () => {
    const everyone = await own.server.connect();
    const gardener = await own.server.connect({ headers: { "X-Skill-Pack": "garden" } });
    for (const [client, pack] of [
      [everyone, "garden"],
      [gardener, undefined],
    ] as const) {
      const { text } = await call(client, "list_skills", { query: "cut back rises", pack });
      expect(text.split("\n")[0]).toBe("prune-roses: Cut back roses in late winter.");
    }
  });

  it("reads a word no skill holds, and still finds only skills within the ceiling", async () => {
    const gardener = await own.server.connect({ headers: { "X-Skill-Pack": "garden" } });
    const { text } = await call(gardener, "list_skills", { query: "cut back rozes" });
    expect(text.split("\n")).toEqual([
      'Read "rozes" as "roses".',
      "prune-roses: Cut back roses in late winter.",
      'Next: read_skill(skill="<name>").',
    ]);
  });
});

describe("read_skill with an unknown name", () => {
  it("suggests close names and skills its words find", async () => {
    expect((await call(served.client, "read_skill", { skill: "report-bilder" })).text).toMatch(
      /^No skill "report-bilder"\. Did you mean: report-builder/,
    );
    expect((await call(served.client, "read_skill", { skill: "rose-pruning" })).text).toContain(
      "Did you mean: prune-roses",
    );
  });
});

describe("a query that is a skill's exact name", () => {
  const named = serveTree({
    ...TREE,
    "office/plan/SKILL.md": skillMd("plan", "Sketch a small project."),
    "office/plan-review/SKILL.md": skillMd(
      "plan-review",
      "Review a plan, check the plan against its goals, and plan again.",
      "# Plan review\n\nA plan, a plan, a plan.\n",
    ),
  });

  it("lists that skill first, in any case and as pack/name, though a longer name scores higher", async () => {
    for (const query of ["plan", "PLAN", " office/plan "]) {
      const { text } = await call(named.client, "list_skills", { query });
      expect(text.split("\n").slice(0, 2), query).toEqual([
        "plan: Sketch a small project.",
        "plan-review: Review a plan, check the plan against its goals, and plan again.",
      ]);
    }
    const { text } = await call(named.client, "list_skills", { query: "plans" });
    expect(text).toMatch(/^plan-review: /);
  });

  it("is read by read_skill in any case", async () => {
    expect((await call(named.client, "read_skill", { skill: "Plan" })).text).toContain("name: plan\n");
  });
});

describe("a pack no selector can narrow, past the listed 200", () => {
  const flat = serveTree({
    ...Object.fromEntries(
      Array.from({ length: 205 }, (_, i) => {
        const name = `widget-${String(i).padStart(3, "0")}`;
        // A third are dashboards: a word in every skill would make a request of it vague, and so would more
        // than ten dashboards alike, which their lengths keep apart.
        const dashboard = `A dashboard widget${" that counts".repeat((i / 3) % 9)}.`;
        const description = i % 3 === 0 ? dashboard : "A kitchen timer widget.";
        return [`big/${name}/SKILL.md`, skillMd(name, description)];
      }),
    ),
    // One group: selecting it leaves the widgets, outside every group, out of any selector's reach.
    "big/extras/lamp/SKILL.md": skillMd("lamp", "A desk lamp."),
  });

  it("names the skills past the 200 listed, since no selector reaches them", async () => {
    const lines = (await call(flat.client, "list_skills", { pack: "big" })).text.split("\n");
    expect(lines).toHaveLength(202);
    expect(lines.at(-2)).toBe(
      "… 6 more skills, by name: widget-199, widget-200, widget-201, widget-202, widget-203, widget-204.",
    );
  });

  it("does not suggest narrowing with pack when a search cannot be narrowed", async () => {
    const lines = (await call(flat.client, "list_skills", { query: "dashboard widget" })).text.split("\n");
    expect(lines.at(-2)).toBe("… 52 more skills matched nearly as well: add words to the query.");
  });
});

describe("a skill whose description runs past the Agent Skills limit", () => {
  // Regression: its whole description (here 20,000 characters) went into every listing and search answer.
  const long = `Reconcile invoices. ${"Ledger lines and totals. ".repeat(800)}`;
  const flooded = serveTree({
    "books/reconcile/SKILL.md": skillMd("reconcile", long),
    "books/close-month/SKILL.md": skillMd("close-month", "Close the month's books."),
  });

  it("is listed and found with the first 1,024 characters of it", async () => {
    const shown = `reconcile: ${long.slice(0, 1024)}…`;
    for (const args of [{}, { query: "reconcile invoices" }]) {
      const { text } = await call(flooded.client, "list_skills", args);
      expect(text.split("\n")).toContain(shown);
      expect(text.length).toBeLessThan(1200);
    }
  });
});

// `help` and `improve it` listed 8 and 10 skills of the bench corpus that say "helps" or "improve" in
// passing: the request names no task, and the lines only cost the model tokens.
describe("list_skills with a request that only asks for something to be done", () => {
  const office = serveTree({
    "office/invoice-reader/SKILL.md": skillMd("invoice-reader", "Read invoices and improve their layout."),
    "office/meeting-notes/SKILL.md": skillMd("meeting-notes", "Helps you write meeting notes."),
    "office/slide-review/SKILL.md": skillMd("slide-review", "Improve a slide deck before a talk."),
    "garden/prune-roses/SKILL.md": skillMd("prune-roses", "Cut back roses in late winter."),
  });
  const withHelpDesk = serveTree({
    "office/meeting-notes/SKILL.md": skillMd("meeting-notes", "Helps you write meeting notes."),
    "office/help-desk/SKILL.md": skillMd("help-desk", "Draft replies to support tickets."),
    "garden/prune-roses/SKILL.md": skillMd("prune-roses", "Cut back roses in late winter."),
  });

  // Search leaves out stop words and single letters: such a request was answered "No skill matches", as
  // if the catalog lacked what it asked for.
  it("says a request of only common words is too vague, and what to do next", async () => {
    for (const query of ["how do I do it", "what is this?"]) {
      expect(await call(office.client, "list_skills", { query })).toEqual({
        isError: false,
        text:
          `"${query}" is too vague to choose by: its words are all too common to search by (as "how", "do" ` +
          'and "it" are). Describe the task in more words, or call list_packs to browse.',
      });
    }
    expect((await call(office.client, "list_skills", { query: "how to", pack: "garden" })).text).toBe(
      '"how to" is too vague to choose by: its words are all too common to search by (as "how", "do" and ' +
        '"it" are). Describe the task in more words, or browse with list_skills(pack="garden").',
    );
  });

  // `???` or a zero-width space were told their words were all too common to search by: they hold none.
  it("says a request of no word at all holds none, and what to do next", async () => {
    for (const [query, shown] of [
      ["???", "???"],
      ["— … !!", "— … !!"],
      ["\u200b\u0000", "{U+200B}{U+0000}"],
    ]) {
      expect(await call(office.client, "list_skills", { query })).toEqual({
        isError: false,
        text:
          `"${shown}" holds no word to search by, only punctuation, symbols or spaces. Describe the task ` +
          "in words, or call list_packs to browse.",
      });
    }
    expect((await call(office.client, "list_skills", { query: "?", pack: "garden" })).text).toBe(
      '"?" holds no word to search by, only punctuation, symbols or spaces. Describe the task in words, ' +
        'or browse with list_skills(pack="garden").',
    );
  });

  it("says it is too vague, and what to do next", async () => {
    for (const query of ["help", "improve it", "help me improve it"]) {
      expect(await call(office.client, "list_skills", { query })).toEqual({
        isError: false,
        text:
          `"${query}" is too vague to choose by: its words ask for something to be done, not what. ` +
          "Describe the task in more words, or call list_packs to browse.",
      });
    }
  });

  it("still lists the skills a request with a task finds, and a skill named by its word", async () => {
    const { text } = await call(office.client, "list_skills", { query: "improve the invoice layout" });
    expect(text.split("\n")[0]).toBe("invoice-reader: Read invoices and improve their layout.");
    const helpDesk = await call(withHelpDesk.client, "list_skills", { query: "help" });
    expect(helpDesk.text.split("\n")[0]).toBe("help-desk: Draft replies to support tickets.");
  });
});

describe("list_skills with a request no skill covers", () => {
  // Skills about software that mention everyday words in passing, as real skills do.
  const software = serveTree({
    "dev/latency-tuning/SKILL.md": skillMd(
      "latency-tuning",
      "Cut the start-up latency of serverless functions.",
      "# Warm-up\nA function left idle goes cold; keep it warm before traffic arrives. It takes long.\n",
    ),
    "dev/build-cache/SKILL.md": skillMd(
      "build-cache",
      "Speed up CI builds with a shared cache.",
      "# Baking images\nBaking a base image once saves each build from doing it again.\n",
    ),
    "dev/flaky-tests/SKILL.md": skillMd("flaky-tests", "Find why tests keep failing."),
    "dev/sql-tuning/SKILL.md": skillMd("sql-tuning", "Make slow SQL queries fast with indexes."),
  });

  // Its matches all touch one word of it in passing: shown, they would only mislead the model.
  it("says that no skill matches, and what to do next, though skills share words with it", async () => {
    const query = "How long should I proof a sourdough loaf in a cold kitchen before baking it?";
    expect(await call(software.client, "list_skills", { query })).toEqual({
      isError: false,
      text: `No skill matches "${query}". Describe the task in other words, or call list_packs to browse.`,
    });
  });

  it("still shows the skill a request is about", async () => {
    const { text } = await call(software.client, "list_skills", { query: "our functions start up slowly" });
    expect(text.split("\n")[0]).toBe("latency-tuning: Cut the start-up latency of serverless functions.");
  });
});
