import { execFileSync } from "node:child_process";
import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitAt, gitCheckingOut, gitRecords } from "../../scripts/fetch-skills/git.js";

/** What a hostile build environment could hold: each names a program or a setting git would take up. */
const HOSTILE = {
  EDITOR: "touch edited",
  VISUAL: "touch edited",
  PAGER: "touch paged",
  PREFIX: "/tmp/elsewhere",
  SSH_ASKPASS: "touch asked",
  GIT_ASKPASS: "touch asked",
  GIT_DIR: "/tmp/elsewhere",
  GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='touch watched'",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "safe.bareRepository",
  GIT_CONFIG_VALUE_0: "explicit",
  Git_Pager: "touch paged",
  GIT_SSL_CAINFO: "/etc/ssl/operator.pem",
};

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "git-environment-"));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Runs `step` with `HOSTILE` (and `extra`) in the environment, restoring it after. */
async function withEnvironment<T>(extra: NodeJS.ProcessEnv, step: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, HOSTILE, extra);
  try {
    return await step();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("fetch-skills: the environment of the git it spawns itself", () => {
  it("is the one simple-git gives git, so a listing takes up no setting the other git calls refuse", async () => {
    const bin = path.join(folder, "bin");
    await mkdir(bin);
    // A "git" that writes its environment, one NUL-ended variable each.
    await writeFile(path.join(bin, "git"), "#!/bin/sh\nexec env -0\n");
    await chmod(path.join(bin, "git"), 0o755);
    const { bySimpleGit, byRecords } = await withEnvironment(
      { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
      async () => {
        const listed = await gitAt(folder, undefined).raw(["ls-tree"]);
        const records: string[] = [];
        await gitRecords(folder, ["ls-tree"], undefined, { keep: 65_536, maxBytes: 1 << 24 }, (record) => {
          records.push(record);
          return true;
        });
        return { bySimpleGit: listed.split("\0").filter(Boolean), byRecords: records };
      },
    );
    expect(byRecords.sort()).toEqual(bySimpleGit.sort());
    expect(byRecords).toContain("GIT_SSL_CAINFO=/etc/ssl/operator.pem");
    expect(byRecords.some((record) => /^(EDITOR|PAGER|GIT_CONFIG_PARAMETERS|Git_Pager)=/.test(record))).toBe(
      false,
    );
  });

  it("lists the store's tree whatever settings the environment passes git", async () => {
    const store = path.join(folder, "store.git");
    execFileSync("git", ["init", "--quiet", "--bare", store]);
    const tree = execFileSync("git", ["mktree"], { cwd: store, input: "" }).toString().trim();
    const listing = await withEnvironment({}, async () => {
      let records = 0;
      await gitRecords(store, ["ls-tree", "-r", "-z", tree], undefined, { keep: 128, maxBytes: 4096 }, () => {
        records++;
        return true;
      });
      return records;
    });
    expect(listing).toBe(0);
  });
});

describe("fetch-skills: the environment of the git that checks a commit out", () => {
  /** What an operator may set beside HOSTILE: settings the fetcher passes its other git calls. */
  const OPERATOR = {
    GIT_SSH_COMMAND: "ssh -i /etc/operator-key",
    GIT_CONFIG_GLOBAL: "/etc/operator.gitconfig",
    GIT_INDEX_FILE: "/tmp/elsewhere/index",
  };

  it("gives git its own index and the operator's config files, nothing else guarded", async () => {
    const bin = path.join(folder, "env-bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "git"), "#!/bin/sh\nexec env -0\n");
    await chmod(path.join(bin, "git"), 0o755);
    const index = path.join(folder, "work", ".git", "index");
    const listed = await withEnvironment(
      { ...OPERATOR, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
      () => gitCheckingOut(folder, index, undefined).raw(["--work-tree", folder, "read-tree", "HEAD"]),
    );
    const records = listed.split("\0").filter(Boolean);
    expect(records).toContain(`GIT_INDEX_FILE=${index}`);
    expect(records).toContain("GIT_CONFIG_GLOBAL=/etc/operator.gitconfig");
    expect(
      records.filter((record) => /^(GIT_|EDITOR=|VISUAL=|PAGER=|PREFIX=|SSH_ASKPASS=)/i.test(record)).sort(),
    ).toEqual([
      "GIT_CONFIG_GLOBAL=/etc/operator.gitconfig",
      `GIT_INDEX_FILE=${index}`,
      "GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS=true",
    ]);
  });

  it("checks the store's commit out into the work tree, its index there, whatever the environment says", async () => {
    const store = path.join(folder, "checkout-store.git");
    execFileSync("git", ["init", "--quiet", "--bare", store]);
    const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: store, input: "hello\n" });
    const tree = execFileSync("git", ["mktree"], {
      cwd: store,
      input: `100644 blob ${blob.toString().trim()}\tSKILL.md\n`,
    });
    const work = path.join(folder, "checkout-work");
    const index = path.join(work, ".git", "index");
    await mkdir(path.dirname(index), { recursive: true });
    await withEnvironment(OPERATOR, () =>
      gitCheckingOut(store, index, undefined).raw([
        "--work-tree",
        work,
        "read-tree",
        "-u",
        "--reset",
        tree.toString().trim(),
      ]),
    );
    expect(await readFile(path.join(work, "SKILL.md"), "utf8")).toBe("hello\n");
    await access(index);
    await expect(access(path.join(store, "index"))).rejects.toThrow();
  });
});

describe("fetch-skills: a git that stops writing", () => {
  /** Runs gitRecords with a "git" on PATH whose body is `script`, giving up after `silenceMs` of silence. */
  async function recordsOf(name: string, script: string, silenceMs: number): Promise<string[]> {
    const bin = path.join(folder, name);
    await mkdir(bin);
    await writeFile(path.join(bin, "git"), `#!/bin/sh\n${script}\n`);
    await chmod(path.join(bin, "git"), 0o755);
    return withEnvironment({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` }, async () => {
      const records: string[] = [];
      const limits = { keep: 128, maxBytes: 4096, silenceMs };
      await gitRecords(folder, ["ls-tree"], undefined, limits, (record) => {
        records.push(record);
        return true;
      });
      return records;
    });
  }

  it("is stopped, with an error saying so, once it has written nothing for its silence limit", async () => {
    // One record, then nothing: a lazy fetch from a remote that hangs (and, unstopped, ends well 30 s on).
    await expect(recordsOf("stalls", "printf 'a\\0'; exec sleep 30", 300)).rejects.toThrow(
      "git ls-tree wrote nothing for 300 ms: stopped",
    );
  });

  it("is stopped when it hangs after closing its output", async () => {
    await expect(recordsOf("hangs", "printf 'a\\0'; exec >&- 2>&-; exec sleep 30", 300)).rejects.toThrow(
      "wrote nothing",
    );
  });

  it("is read to its end while it keeps writing, however long it takes", async () => {
    const script = 'for i in 1 2 3 4 5 6; do printf "$i\\0"; sleep 0.1; done';
    expect(await recordsOf("slow", script, 400)).toEqual(["1", "2", "3", "4", "5", "6"]);
  });
});
