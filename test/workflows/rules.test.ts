import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { ROOT } from "../helpers/process.js";
import { makeTree } from "../helpers/skill-tree.js";
import { evaluate } from "./expression.js";

const Step = z.looseObject({
  id: z.string().optional(),
  if: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  shell: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  "continue-on-error": z.union([z.boolean(), z.string()]).optional(),
  with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});
const Permissions = z.union([z.string(), z.record(z.string(), z.string())]);
const Job = z.looseObject({
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  outputs: z.record(z.string(), z.string()).optional(),
  if: z.string().optional(),
  permissions: Permissions.optional(),
  strategy: z
    .looseObject({ "fail-fast": z.boolean().optional(), matrix: z.record(z.string(), z.unknown()) })
    .optional(),
  env: z.record(z.string(), z.string()).default({}),
  steps: z.array(Step).default([]),
});
const Workflow = z.looseObject({
  on: z.record(z.string(), z.unknown()),
  permissions: Permissions,
  env: z.record(z.string(), z.string()).default({}),
  jobs: z.record(z.string(), Job),
});
type Workflow = z.infer<typeof Workflow>;
type Job = z.infer<typeof Job>;
type Step = z.infer<typeof Step>;

const WORKFLOWS = path.join(ROOT, ".github", "workflows");
const NAMES = ["ci.yml", "image.yml", "update-skills.yml", "release.yml"];

function workflow(name: string): Workflow {
  return Workflow.parse(parse(readFileSync(path.join(WORKFLOWS, name), "utf8")));
}

function job(workflow: Workflow, id: string): Job {
  const found = workflow.jobs[id];
  if (!found) throw new Error(`no job "${id}"; jobs are ${Object.keys(workflow.jobs).join(", ")}`);
  return found;
}

function stepUsing(job: Job, action: string): Step {
  const found = job.steps.find((step) => step.uses?.startsWith(`${action}@`));
  if (!found) throw new Error(`no step uses ${action}`);
  return found;
}

const runLines = (job: Job): string[] => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));

/**
 * Runs one `run:` line as the runner does on Linux: in `bash -e` by default, in `bash -eo pipefail` for a
 * step that says `shell: bash`.
 */
function runStep(script: string, cwd: string, env: Record<string, string>, shell?: string): Promise<void> {
  const options = shell === "bash" ? ["-e", "-o", "pipefail"] : ["-e"];
  return new Promise((resolve, reject) => {
    execFile("bash", ["--noprofile", "--norc", ...options, "-c", script], {
      cwd,
      env: { ...process.env, ...env },
    }).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`"${script}" exited ${code}`))));
  });
}

/** What a step run against the fake `gh` did: the arguments of each call, and what it wrote to GITHUB_OUTPUT. */
interface FakeGhRun {
  readonly calls: string[][];
  readonly output: string;
}

/**
 * Runs a step against a fake `gh` whose `pr list` prints `pullRequests` as JSON, whatever it is asked
 * (the step must filter them itself), or fails; in a run of repository acme/skills-mcp on main.
 */
async function runWithFakeGh(
  step: Step | undefined,
  pullRequests: readonly object[] | "fails",
  env: Record<string, string>,
): Promise<FakeGhRun> {
  const listing = pullRequests === "fails" ? "exit 1" : `cat "$PULL_REQUESTS"`;
  const tree = await makeTree({
    "bin/gh": `#!/bin/bash\nif [ "$1 $2" = "pr list" ]; then ${listing}; fi\nprintf '%s\\037' "$@" >> "$CALLS"\necho >> "$CALLS"\n`,
    "pull-requests.json": JSON.stringify(pullRequests === "fails" ? [] : pullRequests),
    calls: "",
    output: "",
  });
  try {
    await chmod(path.join(tree.dir, "bin", "gh"), 0o755);
    await runStep(
      step?.run ?? "",
      tree.dir,
      {
        PATH: `${path.join(tree.dir, "bin")}:${process.env.PATH ?? ""}`,
        PULL_REQUESTS: path.join(tree.dir, "pull-requests.json"),
        CALLS: path.join(tree.dir, "calls"),
        GITHUB_OUTPUT: path.join(tree.dir, "output"),
        GITHUB_REPOSITORY: "acme/skills-mcp",
        GITHUB_REF_NAME: "main",
        ...env,
      },
      step?.shell,
    );
    const calls = await readFile(path.join(tree.dir, "calls"), "utf8");
    return {
      calls: calls
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.split("\u001f").slice(0, -1)),
      output: await readFile(path.join(tree.dir, "output"), "utf8"),
    };
  } finally {
    await tree.remove();
  }
}

/**
 * Whether a step's `if:` holds, given the outputs of the steps before it: only clauses of the form
 * `steps.<id>.outputs.<name> == '<value>'` (or `!=`) joined by `&&`; any other form throws, so that a test
 * cannot pass on a condition it did not read. An output not set reads as ''.
 */
function holds(condition: string | undefined, outputs: Record<string, Record<string, string>>): boolean {
  return (condition ?? "").split(" && ").every((clause) => {
    const parts = clause.match(/^steps\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '([^']*)'$/);
    if (!parts) throw new Error(`cannot read the condition clause "${clause}"`);
    const [, id = "", name = "", operator, value] = parts;
    return ((outputs[id]?.[name] ?? "") === value) === (operator === "==");
  });
}

function git(cwd: string, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args],
      { cwd },
      (error) => (error ? reject(error) : resolve()),
    );
  });
}

describe("every workflow", () => {
  it.each(NAMES)("%s keeps its logic in npm scripts: each run step is one command line", (name) => {
    for (const [id, each] of Object.entries(workflow(name).jobs)) {
      for (const line of runLines(each)) expect(line.split("\n"), `${name}, job ${id}`).toHaveLength(1);
    }
  });

  it.each(NAMES)("%s reads the Node version from .nvmrc and caches npm", (name) => {
    for (const each of Object.values(workflow(name).jobs)) {
      for (const step of each.steps.filter((s) => s.uses?.startsWith("actions/setup-node@"))) {
        expect(step.with).toMatchObject({ "node-version-file": ".nvmrc", cache: "npm" });
      }
    }
  });

  // Re-running a run failed at "Hand the new pins on": upload-artifact v4+ refuses a name that the run's
  // earlier attempt uploaded (409, "an artifact with this name already exists on the workflow run").
  it.each(NAMES)("%s lets a re-run replace the artifacts its earlier attempt uploaded", (name) => {
    const text = readFileSync(path.join(WORKFLOWS, name), "utf8");
    for (const each of Object.values(workflow(name).jobs)) {
      for (const step of each.steps.filter((s) => s.uses?.startsWith("actions/upload-artifact@"))) {
        expect(step.with.overwrite, `${name}: ${step.uses}`).toBe(true);
        // actionlint cannot check the inputs of an action pinned to a commit; `overwrite` is in v4.2.0 on.
        const release = text.match(new RegExp(`uses: ${step.uses} # v(\\d+)\\.(\\d+)\\.`));
        expect(release, `${name}: ${step.uses} has its release in a comment`).not.toBeNull();
        const [major, minor] = [Number(release?.[1]), Number(release?.[2])];
        expect(major > 4 || (major === 4 && minor >= 2), `${name}: v${major}.${minor}`).toBe(true);
      }
    }
  });
});

describe("ci.yml", () => {
  it("installs from the lockfile and runs the whole suite on pull requests and pushes to main", () => {
    const ci = workflow("ci.yml");
    expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(["pull_request", "push"]));
    expect(ci.permissions).toEqual({ contents: "read" });
    const lines = runLines(job(ci, "test"));
    const install = lines.findIndex((line) => line.startsWith("npm ci"));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf("npm test")).toBeGreaterThan(install);
  });
});

describe("image.yml", () => {
  const image = workflow("image.yml");

  it("builds both platforms on pull requests without pushing or a token that could", () => {
    const build = job(image, "build");
    expect(build.if).toBe("github.event_name == 'pull_request'");
    expect(build.permissions).toBeUndefined();
    expect(image.permissions).toEqual({ contents: "read" });
    expect(stepUsing(build, "docker/build-push-action").with.push).toBe(false);
    expect(build.steps.some((step) => step.uses?.startsWith("docker/login-action@"))).toBe(false);
    expect(image.env.PLATFORMS?.split(",")).toEqual(["linux/amd64", "linux/arm64"]);
  });

  it("pushes to ghcr.io/<owner>/skills-mcp only outside pull requests", () => {
    const publish = job(image, "publish");
    expect(publish.if).toBe("github.event_name != 'pull_request'");
    expect(publish.permissions).toEqual({ contents: "read", packages: "write" });
    expect(stepUsing(publish, "docker/metadata-action").with.images).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
      "ghcr.io/${{ github.repository_owner }}/skills-mcp",
    );
    expect(stepUsing(publish, "docker/build-push-action").with.push).toBe(true);
  });
});

describe("update-skills.yml", () => {
  const update = workflow("update-skills.yml");
  const repin = job(update, "repin");
  const pullRequest = job(update, "pull-request");
  const fetchLine = runLines(repin).find((line) => line.startsWith("npm run fetch-skills -- --update"));
  const summary = fetchLine?.match(/--summary (\S+)/)?.[1];
  const findings = fetchLine?.match(/--findings (\S+)$/)?.[1];

  it("runs every Monday and on demand", () => {
    expect(update.on.workflow_dispatch).toBeDefined();
    expect(update.on.schedule).toEqual([{ cron: expect.stringMatching(/^\S+ \S+ \* \* 1$/) }]);
  });

  it("repins with the fetcher, then tests only when something moved, all with a read-only token", () => {
    expect(fetchLine).toBe(`npm run fetch-skills -- --update --summary ${summary} --findings ${findings}`);
    expect(update.permissions).toEqual({ contents: "read" });
    expect(repin.permissions).toBeUndefined();
    const moved = repin.steps.findIndex((step) => step.id === "moved");
    const tests = repin.steps.findIndex((step) => step.run === "npm test");
    expect(repin.steps[moved]?.run).toContain("git diff --quiet skills.toml");
    expect(repin.steps[tests]?.if).toBe("steps.moved.outputs.moved == 'true'");
    expect(tests).toBeGreaterThan(moved);
  });

  it("checks that the new skills load before the tests, adding the report to the summary", () => {
    const check = repin.steps.findIndex((step) => step.run?.startsWith("npm run --silent check-skills"));
    expect(repin.steps[check]?.run).toBe(`npm run --silent check-skills >> ${summary}`);
    expect(repin.steps[check]?.if).toBe("steps.moved.outputs.moved == 'true'");
    expect(check).toBeGreaterThan(repin.steps.findIndex((step) => step.id === "moved"));
    expect(check).toBeLessThan(repin.steps.findIndex((step) => step.run === "npm test"));
  });

  // The summary goes into a pull request's body and onto the run's page, where `[rules](docs/audit.md)` was
  // read against the page's own address: a 404.
  it("links the audit's rules from the summary as GitHub shows them, before the summary is handed on", async () => {
    for (const each of [repin, job(update, "held-repin")]) {
      const index = each.steps.findIndex((step) => step.run?.includes("](docs/audit.md)"));
      const link = each.steps[index];
      expect(link?.env.RULES).toBe(
        `\${{ github.server_url }}/\${{ github.repository }}/blob/\${{ github.sha }}/docs/audit.md`,
      );
      const check = each.steps.findIndex((step) => step.run?.startsWith("npm run --silent check-skills"));
      const handOn = each.steps.findIndex((step) => step.uses?.startsWith("actions/upload-artifact@"));
      expect(index).toBeGreaterThan(check);
      expect(index).toBeLessThan(handOn);
      const tree = await makeTree({
        [summary ?? ""]: "- Audit ([rules](docs/audit.md)): none\n\n### Audit ([rules](docs/audit.md))\n",
      });
      try {
        const rules = "https://github.com/acme/skills-mcp/blob/0123abc/docs/audit.md";
        await runStep(link?.run ?? "", tree.dir, { RULES: rules });
        expect(await readFile(path.join(tree.dir, summary ?? ""), "utf8")).toBe(
          `- Audit ([rules](${rules})): none\n\n### Audit ([rules](${rules}))\n`,
        );
      } finally {
        await tree.remove();
      }
    }
  });

  // With every moved source held back, no pull request showed the summary, and a source that kept its pin
  // because its new head failed the fetch was told only in the job's log.
  it("shows the summary on the run's page last, whatever failed before it, and with or without a pull request", async () => {
    const show = repin.steps.at(-1);
    expect(show?.if).toBe(`\${{ !cancelled() && hashFiles('${summary}') != '' }}`);
    const tree = await makeTree({ [summary ?? ""]: "## Kept at its pin\n\n- beta: its path is gone\n" });
    try {
      const page = path.join(tree.dir, "step-summary");
      await writeFile(page, "earlier step\n");
      await runStep(show?.run ?? "", tree.dir, { GITHUB_STEP_SUMMARY: page });
      expect(await readFile(page, "utf8")).toBe(
        "earlier step\n## Kept at its pin\n\n- beta: its path is gone\n",
      );
    } finally {
      await tree.remove();
    }
  });

  it("opens or updates the one pull request on skills/update, with the summary as its body", () => {
    expect(pullRequest.needs).toBe("repin");
    expect(pullRequest.if).toBe("needs.repin.outputs.moved == 'true'");
    expect(pullRequest.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      statuses: "write",
    });
    expect(stepUsing(repin, "actions/upload-artifact").with.path?.toString().split("\n")).toEqual(
      expect.arrayContaining(["skills.toml", summary]),
    );
    expect(stepUsing(pullRequest, "peter-evans/create-pull-request").with).toMatchObject({
      branch: "skills/update",
      "add-paths": "skills.toml",
      "body-path": summary,
      token: expect.stringMatching(/^\$\{\{ secrets\.\w+ \|\| github\.token \}\}$/),
    });
  });

  it("counts the high and medium findings the old commits did not have, the way its step is written", async () => {
    const step = repin.steps.find((each) => each.id === "audit");
    expect(step?.if).toBe("steps.moved.outputs.moved == 'true'");
    expect(step?.run).toContain(findings);
    expect(update.jobs.repin?.outputs).toMatchObject({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      "new-high": "${{ steps.audit.outputs.new-high }}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      "new-medium": "${{ steps.audit.outputs.new-medium }}",
    });
    const found = (severity: string, fresh: boolean) => ({
      line: 1,
      rule: "r",
      severity,
      detail: "d",
      new: fresh,
    });
    // Each list once with the paths that show it, as the fetcher writes it: each path's findings count.
    const tree = await makeTree({
      [findings ?? ""]: JSON.stringify({
        findingLists: [
          { paths: ["p/x", "p/copy"], findings: [found("high", true), found("high", false)] },
          { paths: ["p/y"], findings: [found("medium", true)] },
        ],
      }),
      output: "",
    });
    try {
      const env = { GITHUB_OUTPUT: path.join(tree.dir, "output") };
      await runStep(step?.run ?? "", tree.dir, env);
      expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe("new-high=2\nnew-medium=1\n");
      await writeFile(
        path.join(tree.dir, findings ?? ""),
        JSON.stringify({ findingLists: [{ paths: ["p/x"], findings: [found("high", false)] }] }),
      );
      await runStep(step?.run ?? "", tree.dir, env);
      expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe(
        "new-high=2\nnew-medium=1\nnew-high=0\nnew-medium=0\n",
      );
    } finally {
      await tree.remove();
    }
  });

  it("fails the pull request's skills audit status on a new high finding, not the repin", () => {
    expect(pullRequest.permissions).toMatchObject({ statuses: "write" });
    expect(stepUsing(pullRequest, "peter-evans/create-pull-request").id).toBe("pr");
    const status = pullRequest.steps.at(-1);
    expect(status?.if).toBe("steps.pr.outputs.pull-request-number != ''");
    expect(status?.run).toBe(
      'gh api "repos/$GITHUB_REPOSITORY/statuses/$HEAD_SHA" -f state="$STATE" -f context="skills audit" -f description="$DESCRIPTION" -f target_url="$RUN_URL"',
    );
    expect(status?.env).toMatchObject({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      HEAD_SHA: "${{ steps.pr.outputs.pull-request-head-sha }}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      STATE: "${{ needs.repin.outputs.new-high == '0' && 'success' || 'failure' }}",
    });
  });

  // The status said "1 new high findings"; and "No new high finding", green, over a bump whose new medium
  // findings (a step uploading ~/.ssh) the description asked to read.
  it.each([
    ["pull-request", "needs.repin.outputs"],
    ["held-pull-request", "steps.audit.outputs"],
  ])(
    "%s's skills audit status counts its new high and medium findings in words that agree with the counts",
    (id, outputs) => {
      const description = job(update, id).steps.at(-1)?.env.DESCRIPTION ?? "";
      const says = (high: string, medium: string) =>
        evaluate(description, { [`${outputs}.new-high`]: high, [`${outputs}.new-medium`]: medium });
      expect(says("0", "0")).toBe("No new high finding");
      expect(says("1", "0")).toBe("1 new high finding, see the Audit in the description");
      expect(says("0", "1")).toBe(
        "No new high finding; 1 new medium finding to read in the description's Audit",
      );
      expect(says("0", "5")).toBe(
        "No new high finding; 5 new medium findings to read in the description's Audit",
      );
      // GitHub keeps 140 characters of a status description.
      const longest = says("123", "456");
      expect(longest).toBe(
        "123 new high findings, see the Audit in the description; 456 new medium findings to read in the description's Audit",
      );
      expect(longest.length).toBeLessThanOrEqual(140);
    },
  );

  // The status step ran whenever create-pull-request set pull-request-head-sha, which it does even when the
  // branch has no diff with main and it opens no pull request: "skills audit" then landed on main's commit.
  it.each(["pull-request", "held-pull-request"])(
    "%s sets the skills audit status only when there is a pull request to show it",
    (id) => {
      const status = job(update, id).steps.at(-1);
      const output = status?.if?.match(/^steps\.pr\.outputs\.([\w-]+) != ''$/)?.[1];
      expect(output, `the status step's condition is "${status?.if}"`).toBeDefined();
      // What peter-evans/create-pull-request v8 sets (src/create-pull-request.ts) in each case.
      const noDiff = {
        "pull-request-branch": "skills/update",
        "pull-request-operation": "none",
        "pull-request-head-sha": "0123456789abcdef0123456789abcdef01234567",
        "pull-request-commits-verified": "false",
      };
      const opened = { ...noDiff, "pull-request-number": "7", "pull-request-url": "https://x/7" };
      const set = (outputs: Record<string, string>) => (outputs[output ?? ""] ?? "") !== "";
      expect(set(noDiff)).toBe(false);
      expect(set({ ...opened, "pull-request-operation": "created" })).toBe(true);
      expect(set(opened)).toBe(true);
    },
  );

  // `echo "held=$(jq ...)"` wrote an empty output when jq failed, and the step passed: held-repin then ran
  // on fromJSON(''), and a pull request's status said " new high findings".
  it.each([
    ["repin", "held"],
    ["repin", "audit"],
    ["held-pull-request", "audit"],
  ])("%s fails its %s step, writing no output, when the findings cannot be read", async (id, stepId) => {
    const step = job(update, id).steps.find((each) => each.id === stepId);
    expect(step?.run).toContain(findings);
    const tree = await makeTree({ output: "" });
    try {
      const env = { GITHUB_OUTPUT: path.join(tree.dir, "output") };
      await expect(runStep(step?.run ?? "", tree.dir, env, step?.shell)).rejects.toThrow();
      await writeFile(path.join(tree.dir, findings ?? ""), "{ not json");
      await expect(runStep(step?.run ?? "", tree.dir, env, step?.shell)).rejects.toThrow();
      expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe("");
    } finally {
      await tree.remove();
    }
  });

  it("tells a moved pin from an unchanged one the way its step is written", async () => {
    const script = repin.steps.find((step) => step.id === "moved")?.run ?? "";
    const tree = await makeTree({ "skills.toml": '[sources.demo]\nref = "aaaa"\n', output: "" });
    try {
      const env = { GITHUB_OUTPUT: path.join(tree.dir, "output") };
      await git(tree.dir, "init", "-q");
      await git(tree.dir, "add", "skills.toml");
      await git(tree.dir, "commit", "-q", "-m", "pins");
      await runStep(script, tree.dir, env);
      expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe("");

      await writeFile(path.join(tree.dir, "skills.toml"), '[sources.demo]\nref = "bbbb"\n');
      await runStep(script, tree.dir, env);
      expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe("moved=true\n");
    } finally {
      await tree.remove();
    }
  });
  // One source's new high finding failed the status of the one pull request, and every other bump waited
  // on it: the fetch now holds such a source back, and the workflow offers its bump alone.
  describe("a source held back for a new high finding", () => {
    const heldRepin = job(update, "held-repin");
    const heldPullRequest = job(update, "held-pull-request");

    it("is named, after the fetch, whether or not anything else moved, the way its step is written", async () => {
      const step = repin.steps.find((each) => each.id === "held");
      expect(step?.if).toBeUndefined();
      expect(repin.steps.findIndex((each) => each.id === "held")).toBeGreaterThan(
        repin.steps.findIndex((each) => each.run === fetchLine),
      );
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
      expect(update.jobs.repin?.outputs).toMatchObject({ held: "${{ steps.held.outputs.held }}" });
      const finding = {
        path: "risky/y/SKILL.md",
        line: 6,
        rule: "r",
        severity: "high",
        detail: "d",
        new: true,
      };
      const tree = await makeTree({
        [findings ?? ""]: JSON.stringify({
          findings: [],
          heldForReview: [
            { source: "risky", finding },
            { source: "other-one", finding },
          ],
        }),
        output: "",
      });
      try {
        const env = { GITHUB_OUTPUT: path.join(tree.dir, "output") };
        await runStep(step?.run ?? "", tree.dir, env);
        await writeFile(
          path.join(tree.dir, findings ?? ""),
          JSON.stringify({ findings: [], heldForReview: [] }),
        );
        await runStep(step?.run ?? "", tree.dir, env);
        expect(await readFile(env.GITHUB_OUTPUT, "utf8")).toBe('held=["risky","other-one"]\nheld=[]\n');
      } finally {
        await tree.remove();
      }
    });

    it("has its bump repinned alone, once per held source, with a read-only token", () => {
      expect(heldRepin.needs).toBe("repin");
      expect(heldRepin.if).toBe("needs.repin.outputs.held != '[]'");
      expect(heldRepin.permissions).toBeUndefined();
      expect(heldRepin.strategy).toMatchObject({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        matrix: { source: "${{ fromJSON(needs.repin.outputs.held) }}" },
      });
      const lines = runLines(heldRepin);
      const alone = lines.indexOf(
        `npm run fetch-skills -- --update --source "$SOURCE" --summary ${summary} --findings ${findings}`,
      );
      expect(alone).toBeGreaterThan(lines.indexOf("npm run fetch-skills"));
      expect(lines.indexOf("npm run fetch-skills")).toBeGreaterThan(-1);
      expect(lines[alone + 1]).toBe(`npm run --silent check-skills >> ${summary}`);
      expect(heldRepin.steps.find((step) => step.run?.includes("$SOURCE"))?.env).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        SOURCE: "${{ matrix.source }}",
      });
      expect(stepUsing(heldRepin, "actions/upload-artifact").with.path?.toString().split("\n")).toEqual(
        expect.arrayContaining(["skills.toml", summary, findings]),
      );
    });

    it("gets a pull request of its own on skills/held/<source>, its skills audit status failing", () => {
      expect(heldPullRequest.needs).toEqual(["repin", "held-repin"]);
      expect(heldPullRequest.permissions).toEqual(pullRequest.permissions);
      expect(stepUsing(heldPullRequest, "peter-evans/create-pull-request").with).toMatchObject({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        branch: "skills/held/${{ matrix.source }}",
        "add-paths": "skills.toml",
        "body-path": summary,
        token: expect.stringMatching(/^\$\{\{ secrets\.\w+ \|\| github\.token \}\}$/),
      });
      const count = heldPullRequest.steps.find((step) => step.id === "audit");
      expect(count?.run).toBe(repin.steps.find((step) => step.id === "audit")?.run);
      const status = heldPullRequest.steps.at(-1);
      expect(status?.run).toBe(pullRequest.steps.at(-1)?.run);
      expect(status?.env).toMatchObject({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        STATE: "${{ steps.audit.outputs.new-high == '0' && 'success' || 'failure' }}",
      });
    });

    // One held source whose repin failed skipped the pull requests of every other held source: the job
    // waited on every held-repin job's success, not on its own source's.
    it("gets its pull request whatever becomes of the other held sources' repins, and only after its own", () => {
      expect(heldPullRequest.if).toBe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        "${{ !cancelled() && needs.repin.result == 'success' && needs.repin.outputs.held != '[]' }}",
      );
      expect(heldPullRequest.strategy).toEqual({ "fail-fast": false, matrix: heldRepin.strategy?.matrix });
      expect(heldRepin.strategy).toMatchObject({ "fail-fast": false });
      // Its own repin's success is its artifact: uploaded last, unconditionally, after steps that stop the
      // job on failure (but the fetch of every pin, which the bump does not need).
      const upload = stepUsing(heldRepin, "actions/upload-artifact");
      expect(heldRepin.steps.at(-1)).toBe(upload);
      expect(upload.if).toBeUndefined();
      expect(heldRepin.steps.filter((step) => step["continue-on-error"] !== undefined)).toEqual([
        expect.objectContaining({ run: "npm run fetch-skills" }),
      ]);
      const download = stepUsing(heldPullRequest, "actions/download-artifact");
      expect(download.with.name).toBe(upload.with.name);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
      expect(upload.with.name).toBe("skills-held-${{ matrix.source }}");
      expect(download["continue-on-error"]).toBeUndefined();
    });

    // Its title said "a new high audit finding" whatever this run's count was, 0 included, while the status
    // beside it said "No new high finding"; and "no new high audit finding" alone, over new medium findings
    // the status named, read as all clear.
    it("is titled by the count of new high and medium findings this run's repin of it brings", async () => {
      const title = heldPullRequest.steps.find((each) => each.id === "title");
      const at = (id: string) => heldPullRequest.steps.findIndex((each) => each.id === id);
      expect(at("title")).toBeGreaterThan(at("audit"));
      expect(at("title")).toBeLessThan(at("pr"));
      expect(title?.env).toEqual({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        SOURCE: "${{ matrix.source }}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        NEW_HIGH: "${{ steps.audit.outputs.new-high }}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        NEW_MEDIUM: "${{ steps.audit.outputs.new-medium }}",
      });
      expect(stepUsing(heldPullRequest, "peter-evans/create-pull-request").with.title).toBe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        "${{ steps.title.outputs.title }}",
      );
      const tree = await makeTree({ output: "" });
      try {
        const output = path.join(tree.dir, "output");
        for (const [high, medium] of [
          ["0", "0"],
          ["0", "1"],
          ["0", "2"],
          ["1", "0"],
          ["1", "1"],
          ["3", "0"],
          ["3", "4"],
        ] as const) {
          await runStep(title?.run ?? "", tree.dir, {
            GITHUB_OUTPUT: output,
            SOURCE: "risky",
            NEW_HIGH: high,
            NEW_MEDIUM: medium,
          });
        }
        expect((await readFile(output, "utf8")).split("\n")).toEqual([
          "title=Repin skill source risky (held back for review; its bump now brings no new high audit finding)",
          "title=Repin skill source risky (held back for review; its bump now brings no new high audit finding, 1 new medium finding to read)",
          "title=Repin skill source risky (held back for review; its bump now brings no new high audit finding, 2 new medium findings to read)",
          "title=Repin skill source risky (a new high audit finding: review it)",
          "title=Repin skill source risky (a new high audit finding and 1 new medium finding: review them)",
          "title=Repin skill source risky (3 new high audit findings: review them)",
          "title=Repin skill source risky (3 new high audit findings and 4 new medium findings: review them)",
          "",
        ]);
        await writeFile(output, "");
        for (const [high, medium] of [
          ["", "0"],
          ["0", ""],
        ] as const) {
          await expect(
            runStep(title?.run ?? "", tree.dir, {
              GITHUB_OUTPUT: output,
              SOURCE: "risky",
              NEW_HIGH: high,
              NEW_MEDIUM: medium,
            }),
          ).rejects.toThrow();
        }
        expect(await readFile(output, "utf8")).toBe("");
      } finally {
        await tree.remove();
      }
    });

    // When the held source's repin alone left skills.toml as main has it, create-pull-request's delete-branch
    // closed its pull request without a word: a reviewer saw it closed, and not why.
    describe("whose repin alone no longer changes skills.toml", () => {
      const open = heldPullRequest.steps.find((each) => each.id === "open");
      const create = stepUsing(heldPullRequest, "peter-evans/create-pull-request");
      const comment = heldPullRequest.steps.find((each) => each.run?.startsWith("gh pr comment"));
      const branch = create.with.branch?.toString() ?? "";
      const listed = [
        { number: 31, headRefName: "skills/held/risky", isCrossRepository: false },
        { number: 32, headRefName: "skills/held/risky", isCrossRepository: true },
        { number: 33, headRefName: "skills/held/risky-two", isCrossRepository: false },
        { number: 34, headRefName: "skills/update", isCrossRepository: false },
      ];

      it("takes the number of the source's open pull request before create-pull-request runs", async () => {
        expect(open?.env.BRANCH).toBe(branch);
        const at = (step: Step | undefined) => heldPullRequest.steps.indexOf(step ?? create);
        expect(at(open)).toBeGreaterThan(-1);
        expect(at(open)).toBeLessThan(at(create));
        const env = { BRANCH: "skills/held/risky" };
        const found = await runWithFakeGh(open, listed, env);
        expect(found.calls).toEqual([
          [
            ...["pr", "list", "--repo", "acme/skills-mcp", "--base", "main", "--head", "skills/held/risky"],
            ...["--state", "open", "--json", "number,headRefName,isCrossRepository"],
          ],
        ]);
        expect(found.output).toBe("number=31\n");
        expect((await runWithFakeGh(open, listed.slice(1), env)).output).toBe("number=\n");
        await expect(runWithFakeGh(open, "fails", env)).rejects.toThrow();
      });

      it("comments on that pull request why it closed, when create-pull-request closed it", async () => {
        const at = heldPullRequest.steps.indexOf(comment ?? create);
        expect(at).toBeGreaterThan(heldPullRequest.steps.indexOf(create));
        // What peter-evans/create-pull-request v8 sets (src/create-pull-request.ts) in each case.
        const base = {
          "pull-request-branch": branch,
          "pull-request-head-sha": "0123456789abcdef0123456789abcdef01234567",
          "pull-request-commits-verified": "false",
        };
        const closed = { ...base, "pull-request-operation": "closed" };
        const updated = { ...base, "pull-request-operation": "updated", "pull-request-number": "31" };
        const noneOpen = { ...base, "pull-request-operation": "none" };
        expect(holds(comment?.if, { open: { number: "31" }, pr: closed })).toBe(true);
        expect(holds(comment?.if, { open: { number: "31" }, pr: updated })).toBe(false);
        expect(holds(comment?.if, { open: { number: "" }, pr: closed })).toBe(false);
        expect(holds(comment?.if, { open: { number: "" }, pr: noneOpen })).toBe(false);
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        expect(comment?.env.NUMBER).toBe("${{ steps.open.outputs.number }}");
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        expect(comment?.env.WHY).toContain("/actions/runs/${{ github.run_id }}");
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
        expect(comment?.env.WHY).toContain("${{ matrix.source }}");
        const { calls } = await runWithFakeGh(comment, [], { NUMBER: "31", WHY: "why it closed" });
        expect(calls).toEqual([
          ["pr", "comment", "31", "--repo", "acme/skills-mcp", "--body", "why it closed"],
        ]);
      });
    });

    // A held source's pull request stayed open once its bump was no longer held (repinned with the others,
    // its finding gone, or not moving any more), to be closed by hand.
    describe("once that source is no longer held back", () => {
      const close = job(update, "close-held-pull-requests");
      const step = close.steps.find((each) => each.run?.startsWith("gh pr list"));
      const branch = stepUsing(heldPullRequest, "peter-evans/create-pull-request").with.branch?.toString();
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
      const prefix = branch?.replace("${{ matrix.source }}", "");
      const open = [
        { number: 11, headRefName: `${prefix}risky`, isCrossRepository: false },
        { number: 12, headRefName: `${prefix}calm`, isCrossRepository: false },
        { number: 13, headRefName: "skills/update", isCrossRepository: false },
        { number: 14, headRefName: `${prefix}calm`, isCrossRepository: true },
        { number: 15, headRefName: `${prefix}risky-two`, isCrossRepository: false },
        { number: 16, headRefName: `feature/${prefix}calm`, isCrossRepository: false },
      ];

      const closeWith = async (held: string, list: "lists" | "fails" = "lists"): Promise<string[][]> =>
        (
          await runWithFakeGh(step, list === "lists" ? open : "fails", {
            HELD: held,
            WHY: "why it is closed",
          })
        ).calls;

      const closing = (number: number) => [
        "pr",
        "close",
        String(number),
        "--repo",
        "acme/skills-mcp",
        "--delete-branch",
        "--comment",
        "why it is closed",
      ];

      it("closes the pull request of each source not held this week, saying why, and deletes its branch", async () => {
        const listing = [
          ...[
            "pr",
            "list",
            "--repo",
            "acme/skills-mcp",
            "--base",
            "main",
            "--state",
            "open",
            "--limit",
            "1000",
          ],
          ...["--json", "number,headRefName,isCrossRepository"],
        ];
        expect(await closeWith('["risky"]')).toEqual([listing, closing(12), closing(15)]);
        expect(await closeWith("[]")).toEqual([listing, closing(11), closing(12), closing(15)]);
        expect(await closeWith('["risky","calm","risky-two"]')).toEqual([listing]);
      });

      it("fails rather than close nothing when the pull requests cannot be listed", async () => {
        await expect(closeWith("[]", "fails")).rejects.toThrow();
      });

      // A held pull request was closed, its comment saying the bump is on skills/update, even when making that
      // pull request failed: the bump was then offered nowhere.
      it("runs after repin, once skills/update's pull request is made or not needed, running no other code", () => {
        expect(close.needs).toEqual(["repin", "pull-request"]);
        expect(close.if).toBe(
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, meant literally
          "${{ !cancelled() && needs.repin.result == 'success' && (needs.pull-request.result == 'success' || needs.pull-request.result == 'skipped') }}",
        );
        expect(close.permissions).toEqual({ contents: "write", "pull-requests": "write" });
        expect(close.steps).toEqual([step]);
        expect(step?.uses).toBeUndefined();
        expect(step?.env).toMatchObject({
          // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
          GH_TOKEN: "${{ github.token }}",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
          HELD: "${{ needs.repin.outputs.held }}",
          WHY: expect.stringContaining("skills/update"),
        });
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
        expect(step?.env.WHY).toContain("/actions/runs/${{ github.run_id }}");
        expect(step?.run).not.toContain("${{");
      });
    });
  });

  // Every source that moved was held back for review (or none moved): pull-request did not run, and the
  // pull request an earlier run made on skills/update stayed open, offering that run's pins as today's.
  describe("with no bump for skills/update", () => {
    const close = job(update, "close-update-pull-request");
    const step = close.steps.find((each) => each.run?.startsWith("gh pr list"));
    const branch = stepUsing(pullRequest, "peter-evans/create-pull-request").with.branch;
    const open = [
      { number: 21, headRefName: branch, isCrossRepository: false },
      { number: 22, headRefName: branch, isCrossRepository: true },
      { number: 23, headRefName: "skills/held/risky", isCrossRepository: false },
      { number: 24, headRefName: `feature/${branch}`, isCrossRepository: false },
    ];

    it("closes the open pull request on skills/update, saying why, and deletes its branch", async () => {
      const { calls } = await runWithFakeGh(step, open, { WHY: "why it is closed" });
      expect(calls).toEqual([
        [
          ...["pr", "list", "--repo", "acme/skills-mcp", "--base", "main", "--head", "skills/update"],
          ...["--state", "open", "--limit", "1000", "--json", "number,headRefName,isCrossRepository"],
        ],
        [
          "pr",
          "close",
          "21",
          "--repo",
          "acme/skills-mcp",
          "--delete-branch",
          "--comment",
          "why it is closed",
        ],
      ]);
      expect((await runWithFakeGh(step, open.slice(1), { WHY: "why" })).calls).toHaveLength(1);
    });

    it("fails rather than close nothing when the pull requests cannot be listed", async () => {
      await expect(runWithFakeGh(step, "fails", { WHY: "why" })).rejects.toThrow();
    });

    it("runs exactly when repin succeeded and pull-request does not, running no other code", () => {
      expect(close.needs).toBe("repin");
      expect(pullRequest.if).toBe("needs.repin.outputs.moved == 'true'");
      expect(close.if).toBe("needs.repin.outputs.moved != 'true'");
      expect(close.permissions).toEqual({ contents: "write", "pull-requests": "write" });
      expect(close.steps).toEqual([step]);
      expect(step?.shell).toBe("bash");
      expect(step?.run).not.toContain("${{");
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      expect(step?.env).toMatchObject({ GH_TOKEN: "${{ github.token }}" });
      // Why, naming the held sources and where their bumps are, or that nothing moved.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expressions, meant literally
      expect(step?.env.WHY).toContain("/actions/runs/${{ github.run_id }}");
      expect(step?.env.WHY).toContain("needs.repin.outputs.held != '[]' && format(");
      expect(step?.env.WHY).toContain(
        "held back, {0} for a new high audit finding, each bump offered alone in a pull request on skills/held/<source>",
      );
      expect(step?.env.WHY).toContain("join(fromJSON(needs.repin.outputs.held), ', '))");
      expect(step?.env.WHY).toContain("|| 'no source moved from its pin'");
    });
  });
});

describe("release.yml", () => {
  const release = workflow("release.yml");
  const publish = job(release, "publish");
  const stepRunning = (command: string): Step => {
    const found = publish.steps.find((step) => step.run?.includes(command));
    if (!found) throw new Error(`no step runs ${command}`);
    return found;
  };

  it("publishes on version tags only, with provenance, after checking the tag and testing the package", () => {
    expect(release.on).toEqual({ push: { tags: ["v*.*.*"] } });
    expect(release.permissions).toEqual({ contents: "read" });
    expect(publish.permissions).toEqual({ contents: "read", "id-token": "write" });
    expect(stepUsing(publish, "actions/setup-node").with["registry-url"]).toBe("https://registry.npmjs.org");
    const lines = runLines(publish);
    const order = [
      "npm ci",
      "npm run --silent release:check-tag",
      "npx vitest run test/sync/package.test.ts",
      "npm pkg set",
      "npm publish",
    ].map((start) => lines.findIndex((line) => line.startsWith(start)));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(lines.at(-1)).toBe("npm publish --provenance --access public");
  });

  it("refuses a tag that is not the version in package.json, the way its step is written", async () => {
    const { version } = z
      .object({ version: z.string() })
      .parse(JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")));
    const check = stepRunning("release:check-tag").run ?? "";
    await runStep(check, ROOT, { GITHUB_REF_NAME: `v${version}` });
    await expect(runStep(check, ROOT, { GITHUB_REF_NAME: `v${version}-other` })).rejects.toThrow();
  });

  it("names the repository it runs in as the package's, with its home and issues, the way its step is written", async () => {
    const tree = await makeTree({ "package.json": await readFile(path.join(ROOT, "package.json"), "utf8") });
    try {
      await runStep(stepRunning("npm pkg set").run ?? "", tree.dir, { GITHUB_REPOSITORY: "acme/skills-mcp" });
      const { repository, homepage, bugs } = JSON.parse(
        await readFile(path.join(tree.dir, "package.json"), "utf8"),
      ) as Record<string, unknown>;
      expect(repository).toEqual({ type: "git", url: "git+https://github.com/acme/skills-mcp.git" });
      expect(homepage).toBe("https://github.com/acme/skills-mcp#readme");
      expect(bugs).toEqual({ url: "https://github.com/acme/skills-mcp/issues" });
    } finally {
      await tree.remove();
    }
  });
});

describe("the Node version", () => {
  const nvmrc = readFileSync(path.join(ROOT, ".nvmrc"), "utf8").trim();

  it("in .nvmrc is a major that package.json's engines allows", async () => {
    const { engines } = z
      .object({ engines: z.object({ node: z.string() }) })
      .parse(JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")));
    // Only the `>=MAJOR.MINOR` form is understood here; another form must fail, not pass unchecked.
    const floor = engines.node.match(/^>=(\d+)\.\d+$/)?.[1];
    expect(floor, `engines.node is "${engines.node}"`).toBeDefined();
    expect(nvmrc).toMatch(/^\d+$/);
    expect(Number(nvmrc)).toBeGreaterThanOrEqual(Number(floor));
  });

  it.skipIf(!existsSync(path.join(ROOT, "Dockerfile")))(
    "is the one the Dockerfile's base images run (a Dependabot bump must change .nvmrc too)",
    async () => {
      const dockerfile = await readFile(path.join(ROOT, "Dockerfile"), "utf8");
      const majors = [...dockerfile.matchAll(/\bnode:(\d+)/g)].map((match) => match[1]);
      expect(majors.length).toBeGreaterThan(0);
      expect(new Set(majors)).toEqual(new Set([nvmrc]));
    },
  );
});

describe("dependabot.yml", () => {
  it("updates npm, the actions and the Docker base images every week", async () => {
    const config = z
      .object({
        version: z.literal(2),
        updates: z.array(
          z.looseObject({
            "package-ecosystem": z.string(),
            directory: z.string(),
            schedule: z.looseObject({ interval: z.string() }),
          }),
        ),
      })
      .parse(parse(await readFile(path.join(ROOT, ".github", "dependabot.yml"), "utf8")));
    expect(
      config.updates.map((update) => [
        update["package-ecosystem"],
        update.directory,
        update.schedule.interval,
      ]),
    ).toEqual([
      ["npm", "/", "weekly"],
      ["github-actions", "/", "weekly"],
      ["docker", "/", "weekly"],
    ]);
  });
});
