/**
 * What a run opens after it closed its connection to the server: nothing. Closing aborted the reads under
 * way, but fetch's shared pool kept those it had queued and, as each of its connections closed, opened a
 * new one for them (to find them aborted): a run that ended early went on connecting to the server, and
 * under a low `ulimit -n` those sockets took the file descriptors its cleanup needed.
 */
import path from "node:path";
import { setTimeout } from "node:timers/promises";
import { expect, it, onTestFinished } from "vitest";
import { SyncError } from "../../src/sync/options.js";
import { cuttingProxy } from "../helpers/cutting-proxy.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { serveCatalog, sync, tempFolder } from "./helpers.js";

/** How long a run that ended is watched for connections: fetch's pool opened them at once, as its own closed. */
const WATCH_MS = 500;

/**
 * A server of one skill, `alpha`, with 8 files and citing 8 pack files, behind a proxy that cuts the
 * connection of the read of `cut` and holds every other read of a file whose URI `holds` matches
 * unanswered until the test ends (then cut): reads left under way when the run ends.
 */
async function servedHolding(cut: string, holds: RegExp) {
  const root = await tempFolder();
  onTestFinished(() => root.remove());
  const skills = path.join(root.dir, "skills");
  const names = Array.from({ length: 8 }, (_, index) => index);
  await writeTree(skills, {
    "team/alpha/SKILL.md": skillMd(
      "alpha",
      "The alpha skill.",
      names.map((n) => `See shared/p${n}.md.\n`).join(""),
    ),
    ...Object.fromEntries(names.map((n) => [`team/alpha/f${n}.md`, `f${n}\n`])),
    ...Object.fromEntries(names.map((n) => [`team/shared/p${n}.md`, `p${n}\n`])),
  });
  const server = await serveCatalog(skills);
  onTestFinished(() => server.close());
  let holding = false;
  let cutHeld: () => void = () => undefined;
  const held = new Promise<boolean>((resolve) => {
    cutHeld = () => resolve(true);
  });
  const front = await cuttingProxy(new URL(server.url), (body) => {
    const text = body.toString();
    if (!holding || !text.includes('"resources/read"')) return false;
    if (text.includes(cut)) return true;
    return holds.test(text) ? held : false;
  });
  onTestFinished(async () => {
    cutHeld();
    await front.close();
  });
  return {
    front,
    target: path.join(root.dir, "target"),
    /** From now on, the reads are cut and held. */
    hold: () => {
      holding = true;
    },
  };
}

it("opens no connection to the server once a run that failed has closed its own", async () => {
  // A check reads the pack files an installed skill cites, all at once: one cut fails it, the others held.
  const { front, target, hold } = await servedHolding("shared/p0.md", /shared\/p\d\.md/);
  expect((await sync(front.url, target)).counts).toMatchObject({ added: 1 });
  hold();

  const failed = await sync(front.url, target, { mode: "check" }).catch((error: unknown) => error);

  expect(failed).toBeInstanceOf(SyncError);
  expect((failed as Error).message).toMatch(/^cannot tell whether alpha is up to date: /);
  const ended = front.connections;
  await setTimeout(WATCH_MS);
  expect(front.connections).toBe(ended);
});

it("opens no connection to the server once a run that skipped a skill, its reads left under way, has ended", async () => {
  // A skill's files are read at once: one cut skips it, its other reads held.
  const { front, target, hold } = await servedHolding("alpha/f0.md", /alpha\/f\d\.md/);
  hold();

  const report = await sync(front.url, target);

  expect(report.counts).toMatchObject({ added: 0, skipped: 1 });
  const ended = front.connections;
  await setTimeout(WATCH_MS);
  expect(front.connections).toBe(ended);
});
