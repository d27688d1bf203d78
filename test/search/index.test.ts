import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Catalog, loadCatalog, readSkillDocument, type Scope } from "../../src/catalog/index.js";
import { buildIndex, type SearchIndex } from "../../src/search/index.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

/**
 * Small catalogs where one rule decides the order. Every skill mentions "widget" so that a word all of
 * them share can be told apart from a rare one.
 */
const TREE = {
  // name beats body
  "ops/kubernetes-deploy/SKILL.md": skillMd("kubernetes-deploy", "Ship widget services to a cluster."),
  "ops/cluster-notes/SKILL.md": skillMd(
    "cluster-notes",
    "Widget notes about clusters.",
    "# Notes\nKubernetes appears here, in the body, more than once: kubernetes, kubernetes.",
  ),
  // description beats body
  "docs/release-notes/SKILL.md": skillMd("release-notes", "Write a changelog for each widget release."),
  "docs/style-guide/SKILL.md": skillMd(
    "style-guide",
    "House widget style for prose.",
    "# Style\nA changelog entry should be short.",
  ),
  // rare beats common
  "finance/invoice-reader/SKILL.md": skillMd("invoice-reader", "Parse widget invoices into rows."),
  "finance/widget-ledger/SKILL.md": skillMd("widget-ledger", "Keep a widget ledger of widget widget sales."),
  // compound names, stemming
  "n8n/n8n-code-nodes-official/SKILL.md": skillMd(
    "n8n-code-nodes-official",
    "When widget logic needs a custom script inside a workflow.",
  ),
  "n8n/n8n-subworkflows-official/SKILL.md": skillMd(
    "n8n-subworkflows-official",
    "Split a big widget workflow into callable parts.",
  ),
  "dev/debug-helper/SKILL.md": skillMd("debug-helper", "Find why a widget crashed, step by step."),
  // Chinese, written without spaces
  "docs/chart-maker/SKILL.md": skillMd("chart-maker", "把表格数据可视化为图表 (widget charts)."),
  // accented, and in another language
  "docs/cv-writer/SKILL.md": skillMd("cv-writer", "Rédiger le résumé d’un widget, clair et net."),
  // a mistyped word, read by the skills the rest of the request finds: failing or filing
  "dev/flaky-tests/SKILL.md": skillMd("flaky-tests", "Find why widget tests keep failing."),
  "finance/tax-filing/SKILL.md": skillMd("tax-filing", "Prepare widget tax filing forms."),
  // a soft hyphen inside a word, as text laid out for print has
  "docs/print-runs/SKILL.md": skillMd("print-runs", "Widget Auf\u00ADlage je Druck."),
  // a word that needs Unicode handling, spelled plainly once folded
  "docs/street-maps/SKILL.md": skillMd("street-maps", "Draw a widget map of each Straße."),
  // a short name inside a longer, mistyped one
  "docs/notes/SKILL.md": skillMd("notes", "Widget notes."),
  // a count in a request is not a topic
  "dev/release-checklist/SKILL.md": skillMd("release-checklist", "Six widget release checks."),
  "dev/git/rebase-guide/SKILL.md": skillMd(
    "rebase-guide",
    "Rewrite widget history with interactive rebases.",
  ),
};

let tree: TempTree;
let catalog: Catalog;
let index: SearchIndex;

beforeAll(async () => {
  tree = await makeTree(TREE);
  catalog = loadCatalog(tree.dir).catalog;
  index = buildIndex(catalog.everything.skills, readSkillDocument);
});
afterAll(() => tree.remove());

function names(query: string, scope: Scope = catalog.everything, limit = 10): string[] {
  return index.search(query, scope, limit).skills.map((skill) => skill.name);
}

describe("search ranks", () => {
  it("a match in the name above the same word in another skill's body", () => {
    expect(names("kubernetes").slice(0, 2)).toEqual(["kubernetes-deploy", "cluster-notes"]);
  });

  it("a match in the description above the same word in another skill's body", () => {
    expect(names("changelog").slice(0, 2)).toEqual(["release-notes", "style-guide"]);
  });

  it("a rare word above a word every skill shares", () => {
    expect(names("widget invoices")[0]).toBe("invoice-reader");
    expect(names("widget", catalog.everything, 50).length).toBe(catalog.everything.skills.length);
  });

  it("the same whatever the case and hyphens", () => {
    for (const query of ["Code-Nodes", "code nodes", "CODENODES", "n8n code-nodes official"]) {
      expect(names(query)[0]).toBe("n8n-code-nodes-official");
    }
  });

  it("plurals and verb forms as the same word", () => {
    expect(names("debugging")[0]).toBe("debug-helper");
    expect(names("rebasing")[0]).toBe("rebase-guide");
    expect(names("the invoice")[0]).toBe("invoice-reader");
    expect(names("split workflows")[0]).toBe("n8n-subworkflows-official");
  });

  it("the parts of a compound name, and the compound written without hyphens", () => {
    expect(names("subworkflow")[0]).toBe("n8n-subworkflows-official");
    expect(names("sub-workflows")[0]).toBe("n8n-subworkflows-official");
  });

  it("a request by what it is about, not by the things it counts", () => {
    expect(names("All six of my widgets crashed")[0]).toBe("debug-helper");
  });

  it("the pack and group a skill sits in", () => {
    expect(names("git history")[0]).toBe("rebase-guide");
    expect(names("finance")).toEqual(expect.arrayContaining(["invoice-reader", "widget-ledger"]));
  });

  it("a request in Chinese by the words it shares with a skill, though neither has spaces", () => {
    expect(names("数据可视化")).toEqual(["chart-maker"]);
    expect(names("我想把销售数据做成图表")).toEqual(["chart-maker"]);
  });

  it("a request typed without accents, or in letters of another width, as the accented words", () => {
    expect(names("resume redaction")).toEqual(["cv-writer"]);
    expect(names("Résumé")).toEqual(["cv-writer"]);
    expect(names("ｒｅｓｕｍｅ")).toEqual(["cv-writer"]);
  });

  it("a word a skill writes with a soft hyphen inside, as the word typed plainly, and back", () => {
    expect(names("Auflage")).toEqual(["print-runs"]);
    expect(names("auf\u00ADlage")).toEqual(["print-runs"]);
    expect(names("auf")).toEqual([]);
  });

  it("a long request by its meaningful words, ignoring stop words", () => {
    expect(names("How should I go about finding out why my widget crashed yesterday?")[0]).toBe(
      "debug-helper",
    );
    expect(index.search("how do I do it", catalog.everything, 10)).toEqual({
      skills: [],
      matched: 0,
      strongMatches: 0,
      fairMatches: 0,
      partialMatches: false,
      vague: "no words",
      corrections: [],
      undecided: [],
    });
  });
});

describe("a request word no skill holds", () => {
  const search = (query: string, scope: Scope = catalog.everything) => {
    const found = index.search(query, scope, 10);
    return { first: found.skills[0]?.name, corrections: found.corrections };
  };

  it("is matched by nothing when longer than a word may be, not taken for a word too common to search by", () => {
    // On the fast path (`a`, `é`) and on the Unicode path (`ß`, `e` and a combining accent, `Σ`, after an
    // apostrophe; `ß` 200 times is 400 letters folded), whose long words were dropped as stop words are:
    // a request of one was too vague, and beside other words went unnoticed.
    const letters = ["a", "é", "ß", "e\u0301", "Σ"].map((letter) => letter.repeat(300));
    for (const long of [...letters, "ß".repeat(200), `ab’${"ß".repeat(300)}`]) {
      const alone = index.search(long, catalog.everything, 10);
      expect({ long, matched: alone.matched, vague: alone.vague }).toEqual({
        long,
        matched: 0,
        vague: undefined,
      });
      // Beside a word skills hold, it is part of the request no skill offers.
      const beside = index.search(`kubernetes ${long}`, catalog.everything, 10);
      expect({ long, partial: beside.partialMatches }).toEqual({ long, partial: true });
    }
    // A part of a compound alike, though joined to one skills hold.
    expect(index.search(`${"ß".repeat(300)}-kubernetes`, catalog.everything, 10).partialMatches).toBe(true);
  });

  it("is read as the word one typing mistake away, and the reading is told", () => {
    for (const mistyped of ["kubrnetes", "kubernnetes", "kubernetse", "kubernetez"]) {
      expect(search(mistyped)).toEqual({
        first: "kubernetes-deploy",
        corrections: [{ from: mistyped, to: "kubernetes" }],
      });
    }
  });

  it("is read as a word written with letters that fold to a to z", () => {
    expect(search("strase")).toEqual({
      first: "street-maps",
      corrections: [{ from: "strase", to: "strasse" }],
    });
  });

  it("is read as the close word the skills found by the rest of the request hold", () => {
    expect(search("tests keep fsiling")).toEqual({
      first: "flaky-tests",
      corrections: [{ from: "fsiling", to: "failing" }],
    });
    expect(search("tax fsiling")).toEqual({
      first: "tax-filing",
      corrections: [{ from: "fsiling", to: "filing" }],
    });
  });

  it("is left unread when none of those skills holds a close word", () => {
    expect(search("rebase fsiling")).toEqual({ first: "rebase-guide", corrections: [] });
  });

  it("is read only as a word some skill in scope holds", () => {
    expect(search("kubrnetes", catalog.everything.narrow(["finance"]))).toEqual({
      first: undefined,
      corrections: [],
    });
  });

  it("is left unread when shorter than four letters, or when its close word is; a word held is not read", () => {
    expect(search("gti")).toEqual({ first: undefined, corrections: [] });
    expect(search("gitt")).toEqual({ first: undefined, corrections: [] });
    expect(search("tax filing").corrections).toEqual([]);
  });

  it("is left unread in a request with more than three words no skill holds: it is about something else", () => {
    expect(search("kubrnetes flurb glorp").corrections).toEqual([{ from: "kubrnetes", to: "kubernetes" }]);
    expect(search("kubrnetes flurb glorp zonk").corrections).toEqual([]);
  });

  // The search joins a compound's parts (`to-read` as `toread`) to find compound names; a join is no word
  // anyone typed: the bench's "items tagged 'to-read'" was read as "thread", and a request holding two
  // compounds of unknown parts had its one mistyped word left unread, the joins counted as unknown words.
  it("is never a word the search joined from a compound's parts, nor counted as one", () => {
    expect(search("widget notez").corrections).toEqual([{ from: "notez", to: "notes" }]);
    expect(search("widget no-tez").corrections).toEqual([]);
    expect(search("kubrnetes flurb-glorp").corrections).toEqual([{ from: "kubrnetes", to: "kubernetes" }]);
  });

  it("is read, and joins told apart, in words of the scanner's Unicode path (`ß` folds to two letters)", () => {
    expect(search("widget noteß").corrections).toEqual([{ from: "notess", to: "notes" }]);
    expect(search("widget not-eß").corrections).toEqual([]);
    expect(search("kubrnetes flürbß-glorp").corrections).toEqual([{ from: "kubrnetes", to: "kubernetes" }]);
  });

  it("is read as a word held by several skills only when two of the best matches hold it", () => {
    expect(search("widget notez").corrections).toEqual([{ from: "notez", to: "notes" }]);
    expect(search("changelog notez").corrections).toEqual([]);
  });

  it("is read only as a word some skill in scope holds, and a word any skill holds is never read", () => {
    const finance = catalog.everything.narrow(["finance"]);
    expect(search("tax faling", finance)).toEqual({
      first: "tax-filing",
      corrections: [{ from: "faling", to: "filing" }],
    });
    expect(search("tax failing", finance)).toEqual({ first: "tax-filing", corrections: [] });
  });

  it("is not read as a word the request already has, nor two words as the same", () => {
    expect(search("kubernetes kubrnetes").corrections).toEqual([]);
    expect(search("kubrnetes kubernetse").corrections).toEqual([{ from: "kubrnetes", to: "kubernetes" }]);
  });

  it("is read alone only when a single close word is held in scope", () => {
    expect(search("kubrnetes").corrections).toEqual([{ from: "kubrnetes", to: "kubernetes" }]);
    expect(search("fsiling").corrections).toEqual([]);
    expect(search("fsiling", catalog.everything.narrow(["finance"])).corrections).toEqual([
      { from: "fsiling", to: "filing" },
    ]);
  });
});

describe("a close word several skills hold", () => {
  let own: TempTree;
  let ownCatalog: Catalog;
  let ownIndex: SearchIndex;

  beforeAll(async () => {
    own = await makeTree({
      "alpha/release-guide/SKILL.md": skillMd("release-guide", "Write the release notes of a widget."),
      "alpha/release-train/SKILL.md": skillMd(
        "release-train",
        "Ship each release of a widget on a fixed date.",
      ),
      "beta/beta-log/SKILL.md": skillMd("beta-log", "Widget notes."),
      "beta/gamma-log/SKILL.md": skillMd("gamma-log", "More widget notes."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  it("is read when two of the best matches hold it, or when it is the only one in scope to", () => {
    const read = (query: string, scope: Scope) => ownIndex.search(query, scope, 10).corrections;
    expect(read("release notez", ownCatalog.everything)).toEqual([]);
    expect(read("release notez", ownCatalog.everything.narrow(["alpha"]))).toEqual([
      { from: "notez", to: "notes" },
    ]);
  });

  // `guide` is in one skill, which holds notes: two of the best matches could never hold it, and `notez`
  // was left unread, though alone it is read (the same as `webhok signature` over the bundled examples).
  it("is read when the rest of the request matches one skill, and that skill holds it", () => {
    const found = ownIndex.search("guide notez", ownCatalog.everything, 10);
    expect(found.corrections).toEqual([{ from: "notez", to: "notes" }]);
    expect(found.skills[0]?.name).toBe("release-guide");
  });
});

// Porter2 stems `analysis` as analysi and `analyses` as analys: a request in the plural missed the
// skills written in the singular, and the other way round.
describe("a Greek noun in -sis", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "stats/anova/SKILL.md": skillMd("anova", "Run an analysis of variance on widget data."),
      "science/lab-notebook/SKILL.md": skillMd("lab-notebook", "Record widget hypotheses and their tests."),
      "ops/container-images/SKILL.md": skillMd("container-images", "Pick the base image of a widget."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const first = (query: string) => ownIndex.search(query, ownCatalog.everything, 10).skills[0]?.name;

  it("is found by its plural, and the plural by the singular", () => {
    expect(first("analyses")).toBe("anova");
    expect(first("analyse the variance")).toBe("anova");
    expect(first("a hypothesis")).toBe("lab-notebook");
  });

  it("of five letters keeps apart from a word whose plural it shares: basis is not base", () => {
    expect(first("basis")).toBeUndefined();
  });
});

// `postgres` was in a few bodies only, under the floor, and found no skill, though postgresql-table-design
// names PostgreSQL: a request word that begins a longer name word finds it too.
describe("a word that begins a name's word", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "db/postgresql-tables/SKILL.md": skillMd(
        "postgresql-tables",
        "Design widget tables and their indexes.",
      ),
      "db/event-log/SKILL.md": skillMd(
        "event-log",
        "Keep widget events in order.",
        "# Event log\n\nAppend events to a log, replay them to rebuild state, and snapshot often. A store such as postgres holds them.\n",
      ),
      "web/fastapi-service/SKILL.md": skillMd("fastapi-service", "Serve widget routes from Python."),
      "bio/sequence-files/SKILL.md": skillMd("sequence-files", "Read widget FASTA and FASTQ files."),
      "plots/matplotlib-figures/SKILL.md": skillMd("matplotlib-figures", "Draw widget figures in Python."),
      "plots/matplotlib-animations/SKILL.md": skillMd("matplotlib-animations", "Animate widget frames."),
      "bio/fold-changes/SKILL.md": skillMd(
        "fold-changes",
        "Compare widget counts between samples.",
        "# Plots\n\nDraw a maplot of the fold changes against the mean counts.\n",
      ),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const names = (query: string) =>
    ownIndex.search(query, ownCatalog.everything, 10).skills.map((skill) => skill.name);

  it("finds the skill whose name's word it begins", () => {
    expect(names("postgres")[0]).toBe("postgresql-tables");
    expect(names("postgres indexes")[0]).toBe("postgresql-tables");
  });

  // `matplot`, which no skill holds, weighed in the floor as a word held by none, above what a name word
  // held by a skill or two gives, and was read as the mistake `maplot` besides: it found nothing.
  it("finds the skill whose name's word it begins when no skill holds it", () => {
    const found = ownIndex.search("matplot", ownCatalog.everything, 10);
    expect(found.skills.slice(0, found.fairMatches).map((skill) => skill.name)).toEqual([
      "matplotlib-animations",
      "matplotlib-figures",
    ]);
    expect(found.corrections).toEqual([]);
  });

  it("is a word of its own when a skill holds it in its description: FASTA is not FastAPI", () => {
    expect(names("fasta")).toEqual(["sequence-files"]);
  });
});

// The name words were the catalog's: `postgres` begins four here, too many for a short form, and a search
// within `db`, which names one, found nothing, steered by the names of a pack it cannot see.
describe("a word that begins a name's word, in a scope", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "db/postgresql-tables/SKILL.md": skillMd("postgresql-tables", "Design widget tables."),
      "db/event-log/SKILL.md": skillMd(
        "event-log",
        "Keep widget events in order.",
        "# Event log\n\nAppend events to a log and replay them. A store such as postgres holds them.\n",
      ),
      "hosted/postgresus-backups/SKILL.md": skillMd("postgresus-backups", "Back up hosted widget stores."),
      "hosted/postgresml-models/SKILL.md": skillMd("postgresml-models", "Train widget models in place."),
      "hosted/postgrest-routes/SKILL.md": skillMd("postgrest-routes", "Serve widget routes from a schema."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const shown = (query: string, scope: Scope) => {
    const found = ownIndex.search(query, scope, 10);
    return found.skills.slice(0, found.fairMatches).map((skill) => skill.name);
  };

  it("is judged by the names in the caller's scope", () => {
    expect(shown("postgres", ownCatalog.everything.narrow(["db"]))).toEqual(["postgresql-tables"]);
    // Over the whole catalog it begins four names: no short form of one.
    expect(shown("postgres", ownCatalog.everything)).toEqual([]);
  });
});

// `PAINS` (pan-assay interference compounds) stems as the plural of pain: `back pain` listed a medicinal
// chemistry skill that holds no other word of it. A word in capitals that is not its own stem is kept
// apart: found by the word as written, in any case, and not by the word's other forms.
describe("a word written in capitals", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "chem/compound-filters/SKILL.md": skillMd(
        "compound-filters",
        "Flag widget compounds with PAINS filters.",
      ),
      "chem/molecule-reader/SKILL.md": skillMd("molecule-reader", "Read widget molecules from SMILES."),
      "health/clinic-notes/SKILL.md": skillMd(
        "clinic-notes",
        "Write widget notes on back pain and its care.",
      ),
      "chat/emoji-replies/SKILL.md": skillMd(
        "emoji-replies",
        "Answer widget messages with smiles and a wave.",
      ),
      "cloud/cloud-bills/SKILL.md": skillMd("cloud-bills", "Cut widget spending on AWS and GCP."),
      "dev/tool-guide/SKILL.md": skillMd(
        "tool-guide",
        "Pick widget tools for the job.",
        "# Tools\n\nUse the TOOLS listed here, and only these tools: one tool at a time.\n",
      ),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const shown = (query: string) => {
    const found = ownIndex.search(query, ownCatalog.everything, 10);
    return found.skills.slice(0, found.fairMatches).map((skill) => skill.name);
  };

  it("is not found by the word it stems like", () => {
    expect(shown("back pain")).toEqual(["clinic-notes"]);
    expect(shown("pain")).toEqual(["clinic-notes"]);
    // Nor by its stem: AWS is no form of aw (docs/search.md).
    expect(shown("aw")).toEqual([]);
  });

  it("is found by the word as written, in small letters or in capitals", () => {
    expect(shown("pains filters")[0]).toBe("compound-filters");
    expect(shown("smiles")).toContain("molecule-reader");
    expect(shown("smiles")).toContain("emoji-replies");
    expect(shown("SMILES")).toContain("molecule-reader");
    expect(shown("aws")).toEqual(["cloud-bills"]);
  });

  it("is the word itself in a skill that also writes it in small letters", () => {
    expect(shown("tool")).toEqual(["tool-guide"]);
  });

  // `aww` found nothing: a word of 3 letters was never read, and AWS was no reading.
  it("is found by a word of 3 letters mistyped for it, which is read as no other word", () => {
    const found = ownIndex.search("aww", ownCatalog.everything, 10);
    expect(found.corrections).toEqual([{ from: "aww", to: "aws" }]);
    expect(shown("aww")).toEqual(["cloud-bills"]);
    expect(shown("AWW")).toEqual(["cloud-bills"]);
  });

  // `smils` was read as smiles, but found only the skills writing it in small letters.
  it("is found by a word mistyped for it, beside the word in small letters", () => {
    expect(shown("smils").sort()).toEqual(["emoji-replies", "molecule-reader"]);
  });
});

// `smils` was left unread where skills write SMILES only in capitals: a word kept apart was no spelling
// to read a mistyped word as, and one also met inside `MolFromSmiles` was a word of no skill.
describe("a mistyped word that skills write only in capitals", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "chem/molecule-reader/SKILL.md": skillMd(
        "molecule-reader",
        "Read widget molecules from SMILES.",
        "# Reader\n\nCall `Chem.MolFromSmiles` on each line.\n",
      ),
      "chem/compound-filters/SKILL.md": skillMd(
        "compound-filters",
        "Flag widget compounds with PAINS filters.",
      ),
      "health/clinic-notes/SKILL.md": skillMd(
        "clinic-notes",
        "Write widget notes on back pain and its care.",
      ),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  it("is read as that word", () => {
    const found = ownIndex.search("smils", ownCatalog.everything, 10);
    expect(found.corrections).toEqual([{ from: "smils", to: "smiles" }]);
    expect(found.skills.slice(0, found.fairMatches).map((skill) => skill.name)).toEqual(["molecule-reader"]);
  });

  // `SMILS` typed in capitals found nothing where `smils` found SMILES: a word in capitals was never read.
  it("is read as that word when typed in capitals too", () => {
    const found = ownIndex.search("SMILS", ownCatalog.everything, 10);
    expect(found.corrections).toEqual([{ from: "smils", to: "smiles" }]);
    expect(found.skills.slice(0, found.fairMatches).map((skill) => skill.name)).toEqual(["molecule-reader"]);
  });

  it("still does not find the word it stems like", () => {
    const found = ownIndex.search("pain", ownCatalog.everything, 10);
    expect(found.skills.slice(0, found.fairMatches).map((skill) => skill.name)).toEqual(["clinic-notes"]);
  });
});

// Porter2 stems `excellence` as excel: over the bench corpus `excel` listed code-review-excellence alone,
// and read_skill("excel") offered it, a name holding the letters of no word asked for.
// A compound with a function word inside (`step-by-step`, `end-to-end`) is one idea, yet its pairs of
// parts (`stepby`, `bystep`) are terms too, held by the same skills: a request writing it gave a skill
// that writes it the compound's weight three times over, ahead of one holding the rest of the request.
describe("a compound with a function word inside, in a request", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "audit/signed-trails/SKILL.md": skillMd(
        "signed-trails",
        "Step-by-step cookbook for signed widget audit trails.",
      ),
      "work/executing-plans/SKILL.md": skillMd(
        "executing-plans",
        "Execute a written widget plan in a fresh session, and stop to ask when a step is unclear.",
      ),
      "work/writing-plans/SKILL.md": skillMd("writing-plans", "Write a widget plan before touching code."),
      "ops/incident-runbooks/SKILL.md": skillMd("incident-runbooks", "Widget runbooks for incidents."),
      "ops/deploy-checks/SKILL.md": skillMd("deploy-checks", "Check each widget deploy, step by step."),
      "data/join-tables/SKILL.md": skillMd("join-tables", "Join widget tables end-to-end."),
      "shell/shell-builtins/SKILL.md": skillMd("shell-builtins", "List the widget shell's builtin commands."),
      "moves/file-moves/SKILL.md": skillMd("file-moves", "File-by-file cookbook for widget migrations."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const names = (query: string) =>
    ownIndex.search(query, ownCatalog.everything, 10).skills.map((skill) => skill.name);

  it("counts the compound once beside the rest of the request", () => {
    expect(names("carry out our step-by-step plan in a fresh session")[0]).toBe("executing-plans");
  });

  it("still finds the skill that writes the compound, by the compound alone", () => {
    expect(names("step-by-step")[0]).toBe("signed-trails");
    expect(names("end-to-end")).toEqual(["join-tables"]);
  });

  // `ﬁle-by-ﬁle` pasted from a PDF holds the ligature ﬁ, so the compound takes the Unicode path, which
  // kept the pairs around `by` (fileby, byfile) that the same request typed plainly leaves out.
  it("counts it once when the compound holds a non-ASCII letter too", () => {
    const plain = names("carry out our file-by-file plan in a fresh session");
    expect(plain[0]).toBe("executing-plans");
    expect(names("carry out our \uFB01le-by-\uFB01le plan in a fresh session")).toEqual(plain);
  });

  it("keeps the join of a compound of two parts, a hyphen before it or not", () => {
    expect(names("built-in")).toEqual(["shell-builtins"]);
    expect(names("a -built-in")).toEqual(["shell-builtins"]);
  });
});

describe("words Porter2 cuts down to another word", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "dev/code-review-excellence/SKILL.md": skillMd(
        "code-review-excellence",
        "Excellent widget code reviews, with excellence.",
      ),
      "data/sheet-export/SKILL.md": skillMd("sheet-export", "Export widget tables to Excel workbooks."),
      "support/ticket-replies/SKILL.md": skillMd("ticket-replies", "Answer widget customers' tickets."),
      "dev/widget-hooks/SKILL.md": skillMd("widget-hooks", "Write custom widget hooks."),
      "db/postgresql-tables/SKILL.md": skillMd("postgresql-tables", "Design widget tables."),
      "web/express-api/SKILL.md": skillMd("express-api", "Serve widget routes with Express middleware."),
      "bio/rna-expression/SKILL.md": skillMd("rna-expression", "Count widget gene expression in RNA reads."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const names = (query: string) =>
    ownIndex.search(query, ownCatalog.everything, 10).skills.map((skill) => skill.name);

  it("finds the skill about Excel, not one about excellence", () => {
    expect(names("excel")).toEqual(["sheet-export"]);
    expect(names("excellent code review")[0]).toBe("code-review-excellence");
  });

  // Porter2 stems `customer` as custom: `customer` found skills for custom protocols and custom logic.
  it("a customer is not custom", () => {
    expect(names("customer")).toEqual(["ticket-replies"]);
    expect(names("custom hooks")).toEqual(["widget-hooks"]);
  });

  // Porter2 stems `expression` as express: `express` listed n8n expressions and gene expression first.
  it("Express is not an expression", () => {
    expect(names("express")).toEqual(["express-api"]);
    expect(names("gene expressions")).toEqual(["rna-expression"]);
    expect(names("genes expressed")).toEqual(["rna-expression"]);
  });

  it("is no name close to code-review-excellence", () => {
    const suggested = ownIndex.suggest("excel", ownCatalog.everything).map((skill) => skill.name);
    expect(suggested).not.toContain("code-review-excellence");
    expect(ownIndex.suggest("code-review", ownCatalog.everything).map((skill) => skill.name)).toEqual([
      "code-review-excellence",
    ]);
    // A name that begins with the given one still looks like it.
    expect(ownIndex.suggest("postgres", ownCatalog.everything).map((skill) => skill.name)).toEqual([
      "postgresql-tables",
    ]);
  });
});

// The bench's off-topic requests were read onto skills they have nothing to do with: the "sourdough loaf"
// as load, "tomato plants" as plans, a "meal plan" as a mean plan.
describe("a common English word no skill holds", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "perf/load-testing/SKILL.md": skillMd(
        "load-testing",
        "Measure how a widget service holds up under load.",
      ),
      "stats/summary-statistics/SKILL.md": skillMd(
        "summary-statistics",
        "The mean and spread of widget data.",
      ),
      "graphs/graph-search/SKILL.md": skillMd("graph-search", "Find the nearest neighbor of each widget."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const search = (query: string) => {
    const found = ownIndex.search(query, ownCatalog.everything, 10);
    return { first: found.skills[0]?.name, corrections: found.corrections };
  };

  it("is taken as written: the request is about something the catalog lacks", () => {
    expect(search("bake a sourdough loaf")).toEqual({ first: undefined, corrections: [] });
    expect(search("widget data for a meal").corrections).toEqual([]);
  });

  it("leaves mistyped words to be read", () => {
    expect(search("widget service laod")).toEqual({
      first: "load-testing",
      corrections: [{ from: "laod", to: "load" }],
    });
  });
});

// `lager` is a common English word, so it was taken as written even where the rest of the request pointed
// to the catalog's `layer`, one mistake away, and the skills about layers were not found by it.
describe("a common English word no skill holds, one mistake from a word the request points to", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "draw/layer-styles/SKILL.md": skillMd("layer-styles", "Style each layer of a widget drawing."),
      "draw/layer-order/SKILL.md": skillMd("layer-order", "Reorder the layers of a widget drawing."),
      "draw/export-drawing/SKILL.md": skillMd("export-drawing", "Export a widget drawing as an image."),
      "stats/summary-statistics/SKILL.md": skillMd("summary-statistics", "The mean of widget data."),
      "stats/data-cleaning/SKILL.md": skillMd("data-cleaning", "Clean widget data."),
      "stats/mean-tests/SKILL.md": skillMd("mean-tests", "Compare the mean of two widget data sets."),
      "ops/server-restart/SKILL.md": skillMd("server-restart", "Restart the widget server after a deploy."),
      "ops/server-logs/SKILL.md": skillMd("server-logs", "Read the widget server logs after a restart."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const search = (query: string) => {
    const found = ownIndex.search(query, ownCatalog.everything, 10);
    return { first: found.skills[0]?.name, corrections: found.corrections };
  };

  it("is read as that word when most of the request's best matches hold it", () => {
    expect(search("reorder each lager of the drawing")).toEqual({
      first: "layer-order",
      corrections: [{ from: "lager", to: "layer" }],
    });
    // One mistake from `seven` too, a number: a request counts in digits or in words, rarely mistyped.
    expect(search("restart the sever after a deploy")).toEqual({
      first: "server-restart",
      corrections: [{ from: "sever", to: "server" }],
    });
  });

  it("is taken as written when few of them hold it, or alone", () => {
    // Two of the eight best matches for "widget data" hold "mean": a meal is not a mistake.
    expect(search("widget data for a meal").corrections).toEqual([]);
    expect(search("lager")).toEqual({ first: undefined, corrections: [] });
  });
});

// `neighbour` was found only as a typing mistake for the catalog's `neighbor` (and said so), `colour` or
// `optimise` beside other unknown words not at all, and a British word the catalog lacks could be read as
// an unrelated word one mistake away: `tyre` as type.
describe("a word spelled the British or the American way", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "graphs/graph-search/SKILL.md": skillMd("graph-search", "Find the nearest neighbor of each widget."),
      "ui/palette-maker/SKILL.md": skillMd("palette-maker", "Pick color palettes for widget themes."),
      "perf/query-tuning/SKILL.md": skillMd("query-tuning", "Optimize slow widget queries."),
      "legal/license-check/SKILL.md": skillMd("license-check", "Check each widget dependency's license."),
      "logs/log-analysis/SKILL.md": skillMd("log-analysis", "Analyze widget behavior from its logs."),
      "ui/type-scale/SKILL.md": skillMd("type-scale", "Set the widget type scale."),
      "maps/centre-finder/SKILL.md": skillMd("centre-finder", "Find the centre of each widget catalogue."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const search = (query: string) => {
    const found = ownIndex.search(query, ownCatalog.everything, 10);
    return { first: found.skills[0]?.name, corrections: found.corrections };
  };

  it("finds the skills that spell it the other way, without calling it a mistake", () => {
    expect(search("nearest neighbour")).toEqual({ first: "graph-search", corrections: [] });
    expect(search("colour palettes")).toEqual({ first: "palette-maker", corrections: [] });
    expect(search("optimise the slowest queries")).toEqual({ first: "query-tuning", corrections: [] });
    expect(search("software licences")).toEqual({ first: "license-check", corrections: [] });
    expect(search("analyse the behaviour of my service")).toEqual({
      first: "log-analysis",
      corrections: [],
    });
    expect(search("center of a catalog")).toEqual({ first: "centre-finder", corrections: [] });
  });

  it("takes a British word the catalog lacks as written, not as a mistake for another word", () => {
    expect(search("tyre")).toEqual({ first: undefined, corrections: [] });
  });
});

// `grey`, `plough` and `centred` found nothing where skills say gray, plow and centered: no rule of endings
// reached them, and `grey` was no typing mistake either, being one from both gray and grep.
describe("a British word whose stem, or whose form, no rule of endings reached", () => {
  let own: TempTree;
  let ownIndex: SearchIndex;
  let ownCatalog: Catalog;

  beforeAll(async () => {
    own = await makeTree({
      "img/gray-filter/SKILL.md": skillMd(
        "gray-filter",
        "Turn widget photos to grayscale, or tint them gray.",
      ),
      "cli/grep-logs/SKILL.md": skillMd("grep-logs", "Grep the widget logs."),
      "farm/plow-route/SKILL.md": skillMd("plow-route", "Plan the plow route after snow."),
      "ui/text-layout/SKILL.md": skillMd("text-layout", "Keep widget captions centered."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  const search = (query: string) => {
    const found = ownIndex.search(query, ownCatalog.everything, 10);
    return { first: found.skills[0]?.name, corrections: found.corrections };
  };

  it("finds the skills that spell it the American way, without calling it a mistake", () => {
    expect(search("grey")).toEqual({ first: "gray-filter", corrections: [] });
    expect(search("greyscale")).toEqual({ first: "gray-filter", corrections: [] });
    expect(search("plough")).toEqual({ first: "plow-route", corrections: [] });
    expect(search("centred captions")).toEqual({ first: "text-layout", corrections: [] });
  });
});

describe("a request word the catalog holds only inside a camel-case word, or written in capitals", () => {
  let own: TempTree;
  let ownCatalog: Catalog;
  let ownIndex: SearchIndex;

  beforeAll(async () => {
    own = await makeTree({
      "ops/on-call/SKILL.md": skillMd(
        "on-call",
        "Hand the rotation over in PagerDuty.",
        "Restart the DataFetcher.",
      ),
      "docs/page-layout/SKILL.md": skillMd(
        "page-layout",
        "Lay out each page of a rotation report, with maps fetched.",
      ),
      "ops/hand-over/SKILL.md": skillMd("hand-over", "List the duties of whoever takes the rotation."),
    });
    ownCatalog = loadCatalog(own.dir).catalog;
    ownIndex = buildIndex(ownCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => own.remove());

  it("is taken as written, not read as a word one mistake away", () => {
    const read = (query: string) => ownIndex.search(query, ownCatalog.everything, 10).corrections;
    expect(read("pager rotation")).toEqual([]);
    expect(read("fetcher rotation")).toEqual([]);
    expect(read("MAPQ rotation")).toEqual([]);
    // Nor read as a word no skill writes in capitals, where the rest of the request points to it.
    expect(read("MAPQ page layout")).toEqual([]);
    // In small letters and held nowhere, the same word may be a mistake.
    expect(read("mapq rotation")).toEqual([{ from: "mapq", to: "maps" }]);
    // But a word of 3 letters is read only as a word skills write in capitals (`aww` as AWS).
    expect(read("mps rotation")).toEqual([]);
  });

  it("still finds the skills holding another form of it", () => {
    // `duty` is held as spelled only inside PagerDuty; `duties` shares its stem.
    const found = ownIndex.search("duty", ownCatalog.everything, 10);
    expect(found.skills.map((skill) => skill.name)).toEqual(["hand-over"]);
    expect(found.corrections).toEqual([]);
  });
});

describe("search results", () => {
  it("stop at the limit and count every match", () => {
    const found = index.search("widget", catalog.everything, 3);
    expect(found.skills).toHaveLength(3);
    expect(found.matched).toBe(catalog.everything.skills.length);
  });

  it("never include a skill outside the scope, and count only the scope", () => {
    const ops = catalog.everything.narrow(["ops"]);
    const found = index.search("kubernetes widget invoices", ops, 10);
    expect(found.skills.map((skill) => skill.pack)).toEqual(["ops", "ops"]);
    expect(found.matched).toBe(2);
    expect(index.search("invoices", ops, 10).skills).toEqual([]);
    const git = catalog.everything.narrow(["dev/git"]);
    expect(names("widget history debug", git)).toEqual(["rebase-guide"]);
  });

  it("are the same for a scope and for an equal scope built again", () => {
    const first = names("widget", catalog.everything.narrow(["n8n"]));
    const again = names("widget", catalog.everything.narrow(["n8n"]));
    expect(first).toEqual(again);
    expect(first).toHaveLength(2);
  });
});

describe("suggest", () => {
  it("names close to a mistyped one, closest first", () => {
    expect(index.suggest("debug-helpr", catalog.everything).map((skill) => skill.name)[0]).toBe(
      "debug-helper",
    );
    expect(index.suggest("Rebase-Giude", catalog.everything).map((skill) => skill.name)[0]).toBe(
      "rebase-guide",
    );
  });

  it("a name one typo away before a short name inside the given one", () => {
    const suggested = index.suggest("release-notes2", catalog.everything).map((skill) => skill.name);
    expect(suggested.slice(0, 2)).toEqual(["release-notes", "notes"]);
  });

  it("names that contain the given one, ignoring a pack prefix", () => {
    const suggested = index.suggest("n8n/code-nodes", catalog.everything).map((skill) => skill.name);
    expect(suggested[0]).toBe("n8n-code-nodes-official");
  });

  // read_skill("n8n-error-handling") offered python-error-handling first: fewer edits away than the skill
  // whose name holds the whole of it, which came third.
  it("a name holding the whole given one before names fewer edits away", async () => {
    const named = await makeTree({
      "n8n/n8n-error-handling-official/SKILL.md": skillMd("n8n-error-handling-official"),
      "agents/python-error-handling/SKILL.md": skillMd("python-error-handling"),
      "agents/gdpr-data-handling/SKILL.md": skillMd("gdpr-data-handling"),
    });
    try {
      const skills = loadCatalog(named.dir).catalog.everything;
      const suggested = buildIndex(skills.skills, readSkillDocument).suggest("n8n-error-handling", skills);
      expect(suggested.map((skill) => skill.name)[0]).toBe("n8n-error-handling-official");
    } finally {
      await named.remove();
    }
  });

  // read_skill("color_palets") offered icon-sets beside color-palettes: a skill sharing the word "sets"
  // with nothing, found by the name's words, named as if close.
  it("names close to the given one alone when there are some", () => {
    const suggested = index.suggest("release-notess", catalog.everything, 5).map((skill) => skill.name);
    expect(suggested).toContain("release-notes");
    expect(suggested).not.toContain("release-checklist");
  });

  it("skills the name's words find when no name is close", () => {
    expect(index.suggest("parse-invoices", catalog.everything).map((skill) => skill.name)).toContain(
      "invoice-reader",
    );
  });

  // `changelog` is in release-notes' description and style-guide's body, neither name: a model that asked
  // for a skill named so was offered both as if it had misremembered their names.
  it("no skill the name's words find only in its text", () => {
    expect(index.suggest("changelog", catalog.everything)).toEqual([]);
  });

  // read_skill("parse-invoices") offered bioservices alone, 6 edits away, as a close name, and so never
  // the skill its words find; read_skill("tdd") offered workflow notes holding the word.
  it("a name sharing letters but no word is not close; a name's initials are", async () => {
    const named = await makeTree({
      "bio/bioservices/SKILL.md": skillMd("bioservices", "Query biological web services."),
      "finance/invoice-reader/SKILL.md": skillMd("invoice-reader", "Parse invoices into rows."),
      "dev/test-driven-development/SKILL.md": skillMd(
        "test-driven-development",
        "Write the test first (TDD).",
      ),
      "dev/writing-plans/SKILL.md": skillMd("writing-plans", "Break a spec into small tasks."),
      "dev/workflow-notes/SKILL.md": skillMd("workflow-notes", "Our workflow, TDD and TDD again."),
    });
    try {
      const skills = loadCatalog(named.dir).catalog.everything;
      const built = buildIndex(skills.skills, readSkillDocument);
      const names = (name: string) => built.suggest(name, skills).map((skill) => skill.name);
      expect(names("parse-invoices")).toEqual(["invoice-reader"]);
      expect(names("tdd")).toEqual(["test-driven-development"]);
      // 3 edits of 11 letters: a word misremembered, within a quarter of the letters rounded up.
      expect(names("writer-plans")).toEqual(["writing-plans"]);
    } finally {
      await named.remove();
    }
  });

  it("only skills in scope, at most the limit", () => {
    const finance = catalog.everything.narrow(["finance"]);
    expect(index.suggest("debug-helpr", finance).map((skill) => skill.name)).not.toContain("debug-helper");
    expect(index.suggest("widget", catalog.everything, 2).length).toBeLessThanOrEqual(2);
    expect(index.suggest("debugging releases", catalog.everything, 2)).toHaveLength(2);
    expect(index.suggest("zzzz", catalog.everything)).toEqual([]);
  });
});

describe("a catalog with tens of thousands of distinct words", () => {
  const SKILLS = 1500;
  const WORDS_EACH = 25;
  /** A made-up word the stemmer leaves alone, one per (skill, slot): its number in letters a to z. */
  const wordOf = (skill: number, slot: number) => {
    const letters = [...(skill * WORDS_EACH + slot).toString(26)].map((digit) =>
      String.fromCharCode(97 + Number.parseInt(digit, 26)),
    );
    return `zq${letters.join("")}x`;
  };
  let big: TempTree;
  let bigCatalog: Catalog;
  let bigIndex: SearchIndex;

  beforeAll(async () => {
    const entries: Record<string, string> = {};
    for (let skill = 0; skill < SKILLS; skill++) {
      const unique = Array.from({ length: WORDS_EACH }, (_, slot) => wordOf(skill, slot)).join(" ");
      // Every 300th skill also mentions "sparse": its documents lie far apart in the postings.
      const sparse = skill % 300 === 0 ? " sparse" : "";
      entries[`pack-${skill % 7}/skill-${skill}/SKILL.md`] = skillMd(
        `skill-${skill}`,
        `Skill number ${skill}.`,
        `# Notes\n\n${unique}${sparse}\n`,
      );
    }
    big = await makeTree(entries);
    bigCatalog = loadCatalog(big.dir).catalog;
    bigIndex = buildIndex(bigCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => big.remove());

  it("finds every skill by each of its own words, and only it", () => {
    for (let skill = 0; skill < SKILLS; skill += 7) {
      for (const slot of [0, 12, WORDS_EACH - 1]) {
        const found = bigIndex.search(wordOf(skill, slot), bigCatalog.everything, 10);
        expect(found.skills.map((each) => each.name)).toEqual([`skill-${skill}`]);
      }
    }
  });

  it("finds every skill holding a word, however far apart they lie", () => {
    const found = bigIndex.search("sparse", bigCatalog.everything, 10);
    expect(found.skills.map((skill) => skill.name).sort()).toEqual(
      ["skill-0", "skill-300", "skill-600", "skill-900", "skill-1200"].sort(),
    );
  });
});

describe("SKILL.md sections", () => {
  let sections: TempTree;
  let sectionsCatalog: Catalog;
  let sectionsIndex: SearchIndex;

  beforeAll(async () => {
    const filler = "Some words about tooling and practice. ".repeat(20);
    sections = await makeTree({
      "p/real-heading/SKILL.md": skillMd("real-heading", "First.", `# Frobnication\n\n${filler}\n`),
      "p/fenced-hash/SKILL.md": skillMd(
        "fenced-hash",
        "Second.",
        `# Intro\n\n\`\`\`bash\n# frobnication\n\`\`\`\n\n${filler}\n`,
      ),
      "p/front-matter/SKILL.md": `---\nname: front-matter\ndescription: Third.\nlicense: quuxware\n---\n\n${filler}\n`,
    });
    sectionsCatalog = loadCatalog(sections.dir).catalog;
    sectionsIndex = buildIndex(sectionsCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => sections.remove());

  const namesFor = (query: string) =>
    sectionsIndex.search(query, sectionsCatalog.everything, 10).skills.map((skill) => skill.name);

  it("weigh a heading above the same line as a comment in a code block", () => {
    expect(namesFor("frobnication")).toEqual(["real-heading", "fenced-hash"]);
  });

  it("leave out frontmatter keys other than name and description", () => {
    expect(namesFor("quuxware")).toEqual([]);
    expect(namesFor("third")).toEqual(["front-matter"]);
  });
});

describe("strong matches", () => {
  it("are those scoring at least half the best score", () => {
    const found = index.search("widget invoices", catalog.everything, 3);
    expect(found.skills[0]?.name).toBe("invoice-reader");
    expect(found.matched).toBe(catalog.everything.skills.length);
    expect(found.strongMatches).toBe(1);
    const even = index.search("widget", catalog.everything, 3);
    expect(even.strongMatches).toBeGreaterThan(3);
  });
});

describe("fair matches", () => {
  it("are those scoring at least 0.4 of the best score: a word only in passing is faint", () => {
    // kubernetes-deploy holds the word in its name, cluster-notes only in its body.
    const found = index.search("kubernetes", catalog.everything, 10);
    expect(found.skills.map((skill) => skill.name)).toEqual(["kubernetes-deploy", "cluster-notes"]);
    expect(found.fairMatches).toBe(1);
  });
});

describe("a request no skill covers", () => {
  // Ten skills about software, each mentioning everyday words in passing, as real skills do.
  const SOFTWARE = {
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
    "dev/formal-methods/SKILL.md": skillMd(
      "formal-methods",
      "Check a specification with a model checker.",
      "# Method\nWrite the invariant first; a proof of it follows from the model.\n",
    ),
    "dev/flaky-tests/SKILL.md": skillMd("flaky-tests", "Find why tests keep failing."),
    "dev/release-notes/SKILL.md": skillMd("release-notes", "Write a changelog for each release."),
    "dev/sql-tuning/SKILL.md": skillMd("sql-tuning", "Make slow SQL queries fast with indexes."),
    "dev/api-design/SKILL.md": skillMd("api-design", "Design REST endpoints and their errors."),
    "dev/log-search/SKILL.md": skillMd("log-search", "Search service logs for an incident."),
    "dev/docker-images/SKILL.md": skillMd("docker-images", "Build small Docker images."),
    "dev/git-rebase/SKILL.md": skillMd("git-rebase", "Rewrite history with interactive rebases."),
  };
  let software: TempTree;
  let softwareCatalog: Catalog;
  let softwareIndex: SearchIndex;

  beforeAll(async () => {
    software = await makeTree(SOFTWARE);
    softwareCatalog = loadCatalog(software.dir).catalog;
    softwareIndex = buildIndex(softwareCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => software.remove());

  // Its matches touch a word of it in passing, all evenly: a share of the best score keeps them all.
  it("has no fair match, though skills share words with it", () => {
    const found = softwareIndex.search(
      "How long should I proof a sourdough loaf in a cold kitchen before baking it?",
      softwareCatalog.everything,
      10,
    );
    expect(found.matched).toBeGreaterThan(0);
    expect(found.fairMatches).toBe(0);
    expect(found.strongMatches).toBe(0);
  });

  // `git-rebase` says "Rewrite history" in its description: beside "baking", one word of two held in
  // passing was listed as an answer, while the word alone still finds it.
  it("has no fair match that holds one of several words only in passing", () => {
    const fair = (query: string) => {
      const found = softwareIndex.search(query, softwareCatalog.everything, 10);
      return found.skills.slice(0, found.fairMatches).map((skill) => skill.name);
    };
    expect(fair("history of baking")).toEqual([]);
    expect(fair("history")).toEqual(["git-rebase"]);
  });

  it("while a request a skill covers still has its fair matches", () => {
    const found = softwareIndex.search("our functions start up slowly", softwareCatalog.everything, 10);
    expect(found.skills[0]?.name).toBe("latency-tuning");
    expect(found.fairMatches).toBeGreaterThan(0);
  });
});

// PAINS filters held `pain` of a request for stretches for lower back pain, in their name, and nothing
// else of it: they were listed first, as if they answered it.
describe("a request of several words, of which a skill holds one", () => {
  const CHEMISTRY = {
    "chem/pains-filters/SKILL.md": skillMd("pains-filters", "Flag PAINS compounds in screening libraries."),
    "chem/assay-runs/SKILL.md": skillMd(
      "assay-runs",
      "Plan plate assays.",
      "# Timing\nA long run takes the plate reader for the night; a lower volume keeps it short.\n",
    ),
    "chem/css-layout/SKILL.md": skillMd(
      "css-layout",
      "Lay out report pages.",
      "# Rows\nA flex item stretches to fill its row; roll back to blocks for print.\n",
    ),
    "chem/sample-storage/SKILL.md": skillMd("sample-storage", "Store samples cold and dry."),
    "chem/lab-safety/SKILL.md": skillMd("lab-safety", "Wear gloves and goggles at the bench."),
  };
  let chemistry: TempTree;
  let chemistryCatalog: Catalog;
  let chemistryIndex: SearchIndex;

  beforeAll(async () => {
    chemistry = await makeTree(CHEMISTRY);
    chemistryCatalog = loadCatalog(chemistry.dir).catalog;
    chemistryIndex = buildIndex(chemistryCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => chemistry.remove());

  const fair = (query: string) => {
    const found = chemistryIndex.search(query, chemistryCatalog.everything, 10);
    return found.skills.slice(0, found.fairMatches).map((skill) => skill.name);
  };

  it("has no fair match that scores little beyond that word", () => {
    expect(fair("Stretches for lower back pain after a long run")).toEqual([]);
  });

  // Of a few words, one may be all the subject there is.
  it("keeps such a match of a request of fewer words", () => {
    expect(fair("stretches for lower back pain")).toEqual(["pains-filters"]);
  });
});

describe("a request made only of words half the catalog holds", () => {
  // Twelve skills load data for a sample, six in each of two packs, and a data cleaner: "data" is in 13
  // of 16 skills, as it was in 254 of the bench corpus's 364.
  const SAMPLES = {
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => {
        const name = `sample-${String(i).padStart(2, "0")}`;
        return [`${i < 6 ? "lab" : "field"}/${name}/SKILL.md`, skillMd(name, `Load data for sample ${i}.`)];
      }),
    ),
    "tools/data-cleaner/SKILL.md": skillMd("data-cleaner", "Clean messy data before plotting it."),
    "tools/gel-imaging/SKILL.md": skillMd(
      "gel-imaging",
      "Photograph an agarose gel under ultraviolet light.",
    ),
    "tools/pipette-care/SKILL.md": skillMd("pipette-care", "Calibrate pipettes once a month."),
    "tools/fume-hood/SKILL.md": skillMd("fume-hood", "Keep the fume hood sash low while working."),
  };
  let samples: TempTree;
  let samplesCatalog: Catalog;
  let samplesIndex: SearchIndex;

  beforeAll(async () => {
    samples = await makeTree(SAMPLES);
    samplesCatalog = loadCatalog(samples.dir).catalog;
    samplesIndex = buildIndex(samplesCatalog.everything.skills, readSkillDocument);
  });
  afterAll(() => samples.remove());

  // "data" alone matched thirteen skills about alike, and ten of them were shown as if they answered it.
  it("is vague when more skills match it strongly than were asked for: none of them is fair", () => {
    const found = samplesIndex.search("data", samplesCatalog.everything, 10);
    expect(found.vague).toBe("common words");
    expect(found.fairMatches).toBe(0);
    expect(found.strongMatches).toBeGreaterThan(10);
    expect(found.skills).toHaveLength(10);
  });

  it("is not vague beside a rarer word, nor where its strong matches fit in the answer", () => {
    const cleaning = samplesIndex.search("clean the data", samplesCatalog.everything, 10);
    expect(cleaning.vague).toBeUndefined();
    expect(cleaning.skills[0]?.name).toBe("data-cleaner");
    expect(cleaning.fairMatches).toBeGreaterThan(0);
    const inLab = samplesIndex.search("data", samplesCatalog.everything.narrow(["lab"]), 10);
    expect(inLab.vague).toBeUndefined();
    expect(inLab.fairMatches).toBe(6);
  });
});

// "design" alone, a word 43 % of the bench corpus's skills hold, listed ten of the 19 skills it matched
// within a tenth of the best, in their names or in passing alike: a sample, not an answer.
describe("a request more skills match alike than can be shown", () => {
  // Fourteen skills that say nothing of design, so that "design" is in fewer than half the skills.
  const KITCHEN = Object.fromEntries(
    Array.from({ length: 14 }, (_, i) => {
      const name = `recipe-${String(i).padStart(2, "0")}`;
      return [`kitchen/${name}/SKILL.md`, skillMd(name, `Cook dinner number ${i} in one pot.`)];
    }),
  );
  // Twelve design skills, each in a pack of its own.
  const DESIGNS = {
    ...KITCHEN,
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => {
        const name = `design-${String(i).padStart(2, "0")}`;
        return [`studio-${i}/${name}/SKILL.md`, skillMd(name, `Design widget number ${i}.`)];
      }),
    ),
    "studio-0/logo-maker/SKILL.md": skillMd("logo-maker", "Design a logo for a widget brand."),
  };
  // One design skill copied into twelve packs: one skill, however many copies tie.
  const COPIES = {
    ...KITCHEN,
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `studio-${i}/design-guide/SKILL.md`,
        skillMd("design-guide", "Design widgets."),
      ]),
    ),
  };
  let designs: TempTree;
  let copies: TempTree;
  let designsCatalog: Catalog;
  let copiesCatalog: Catalog;
  let designsIndex: SearchIndex;
  let copiesIndex: SearchIndex;

  beforeAll(async () => {
    designs = await makeTree(DESIGNS);
    designsCatalog = loadCatalog(designs.dir).catalog;
    designsIndex = buildIndex(designsCatalog.everything.skills, readSkillDocument);
    copies = await makeTree(COPIES);
    copiesCatalog = loadCatalog(copies.dir).catalog;
    copiesIndex = buildIndex(copiesCatalog.everything.skills, readSkillDocument);
  });
  afterAll(async () => {
    await designs.remove();
    await copies.remove();
  });

  it("is vague, though its word is in fewer than half the skills: none of its matches is fair", () => {
    const found = designsIndex.search("design", designsCatalog.everything, 10);
    expect(found.vague).toBe("tied");
    expect(found.fairMatches).toBe(0);
    expect(found.skills).toHaveLength(10);
  });

  it("is not vague beside a word that sets one skill apart, nor over one skill's copies", () => {
    const logo = designsIndex.search("design a logo", designsCatalog.everything, 10);
    expect(logo.vague).toBeUndefined();
    expect(logo.skills[0]?.name).toBe("logo-maker");
    const copied = copiesIndex.search("design", copiesCatalog.everything, 10);
    expect(copied.vague).toBeUndefined();
    expect(copied.fairMatches).toBe(12);
  });
});
