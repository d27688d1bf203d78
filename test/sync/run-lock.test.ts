/**
 * The run lock of a sync's target folder: one run installs at a time, and a lock left by a run that no
 * longer runs is taken over, by one of the runs that find it, never by two.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RUN_LOCK_FILE, type RunLock, takeRunLock } from "../../src/sync/run-lock.js";

/** A process id no process has: Linux ids stop at 2^22. */
const DEAD_PID = 2 ** 30;

/** Linux tells processes apart by pid namespace, boot and start time, which these tests need. */
const onLinux = existsSync("/proc/self/stat");

/** This machine's id, as a lock names it (see run-holder.ts); undefined where it has none. */
const machine = ["/etc/machine-id", "/var/lib/dbus/machine-id"]
  .map((file) => (existsSync(file) ? readFileSync(file, "utf8").trim() : ""))
  .find((id) => id !== "");

/** How a sync of this machine names process `pid` in its lock (see run-lock.ts). */
function holder(pid: number | "self", run = "another run") {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return {
    pid: pid === "self" ? process.pid : pid,
    startedAt: "2026-01-01T00:00:00Z",
    run,
    host: hostname(),
    pidNamespace: readlinkSync("/proc/self/ns/pid"),
    boot: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
    start: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19],
    ...(machine === undefined ? {} : { machine }),
  };
}

/** The marker a run taking over the lock that reads `text` works under (see run-lock.ts's takeTurn). */
function markerOf(folder: string, text: string): string {
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  return path.join(folder, `${RUN_LOCK_FILE}.${hash}.takeover`);
}

describe("the run lock", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "run-lock-"));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("is taken over from a run that is gone by exactly one of the runs that find it at once", async () => {
    for (let round = 0; round < 100; round++) {
      const file = path.join(folder, RUN_LOCK_FILE);
      await writeFile(file, `${JSON.stringify({ pid: DEAD_PID, startedAt: "2026-01-01T00:00:00Z" })}\n`);
      const results = await Promise.all(Array.from({ length: 16 }, () => takeRunLock(folder)));
      const taken = results.filter((result): result is RunLock => "release" in result);
      expect(taken, `round ${round}`).toHaveLength(1);
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ pid: process.pid });
      expect(await readdir(folder)).toEqual([RUN_LOCK_FILE]);
      await Promise.all(taken.map((lock) => lock.release()));
    }
  });

  // An older sync's release removed whatever lock was there, also one another run had taken since: a
  // third run then got in beside the second.
  it("is taken again by its holder when it went meanwhile, and is not another run's to remove", async () => {
    const file = path.join(folder, RUN_LOCK_FILE);
    const lock = await takeRunLock(folder);
    if (!("release" in lock)) throw new Error("the lock is not taken");
    const text = await readFile(file, "utf8");
    await rm(file);
    expect(lock.check()).toBeUndefined();
    expect(await readFile(file, "utf8")).toBe(text);

    const other = `${JSON.stringify({ pid: DEAD_PID, startedAt: "2026-01-01T00:00:00Z" })}\n`;
    await writeFile(file, other);
    expect(lock.check()).toEqual({ heldBy: DEAD_PID, file });
    await lock.release();
    expect(await readFile(file, "utf8")).toBe(other);
  });

  describe.runIf(onLinux)("tells its holder from another process of the same id", () => {
    const file = () => path.join(folder, RUN_LOCK_FILE);
    const lockOf = async (fields: object, modifiedAgoMs = 0) => {
      await writeFile(file(), `${JSON.stringify(fields)}\n`);
      const when = new Date(Date.now() - modifiedAgoMs);
      await utimes(file(), when, when);
    };
    const take = async () => {
      const result = await takeRunLock(folder);
      if ("release" in result) await result.release();
      return "release" in result ? "taken" : result;
    };

    // The image's sync is PID 1 of its container: a lock left by one killed outright names pid 1, and so
    // does the next container's sync, to which pid 1 (itself) runs.
    it("takes over a lock naming this process's id for another run", async () => {
      await lockOf(holder("self"));
      expect(await take()).toBe("taken");
    });

    it("leaves a lock this process holds for another of its runs", async () => {
      const first = await takeRunLock(folder);
      expect(await take()).toEqual({ heldBy: process.pid, file: file() });
      if ("release" in first) await first.release();
    });

    it("leaves a lock of a live process of this host", async () => {
      await lockOf(holder(process.ppid), 3_600_000);
      expect(await take()).toEqual({ heldBy: process.ppid, file: file() });
    });

    it("takes over a lock naming a live process that started after the lock's holder did", async () => {
      await lockOf({ ...holder(process.ppid), start: "1" });
      expect(await take()).toBe("taken");
    });

    // A sync killed outright stays a zombie until its parent waits for it (one that never does: a
    // container's shell that exec'd into another program). Its id answers a signal, so its lock was held
    // until then, every later run waiting, then failing, naming a process that installs nothing.
    it("takes over a lock of a process that ended, its parent not having waited for it", async () => {
      // The background sleep ends after its shell became a sleep that never waits for it.
      const parent = spawn("sh", ["-c", "sleep 0.2 & echo $!; exec sleep 60"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      try {
        const [line] = (await once(parent.stdout, "data")) as [Buffer];
        const pid = Number(line.toString().trim());
        const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
        while (state() !== "Z") await sleep(20);
        await lockOf(holder(pid));
        expect(await take()).toBe("taken");
        await lockOf({ pid, startedAt: "2026-01-01T00:00:00Z" });
        expect(await take()).toBe("taken");
      } finally {
        parent.kill();
      }
    });

    it("leaves a lock of an older sync (process id only) whose process runs", async () => {
      await lockOf({ pid: process.ppid, startedAt: "2026-01-01T00:00:00Z" });
      expect(await take()).toEqual({ heldBy: process.ppid, file: file() });
    });

    it("leaves a lock of another container refreshed lately, and takes it over once not", async () => {
      const container = { ...holder("self"), pid: 1, host: "3f2a9c1d7e4b", pidNamespace: "pid:[4026532999]" };
      await lockOf(container, 30_000);
      expect(await take()).toEqual({ heldBy: 1, host: "3f2a9c1d7e4b", leaseMs: 120_000, file: file() });
      await lockOf(container, 10 * 60_000);
      expect(await take()).toBe("taken");
    });

    it("leaves a lock of another machine however old, and takes over one of this machine before a restart", async () => {
      const other = { ...holder("self"), host: "build-7", boot: "00000000-0000-0000-0000-000000000000" };
      await lockOf(other, 24 * 3_600_000);
      expect(await take()).toEqual({ heldBy: process.pid, host: "build-7", file: file() });
      await lockOf({ ...other, host: hostname() });
      expect(await take()).toBe(
        machine === undefined
          ? {
              heldBy: process.pid,
              host: `${hostname()}, another machine of that name or this one before a restart`,
              leaseMs: 120_000,
              file: file(),
            }
          : "taken",
      );
    });

    // Two machines of one host name (cloned from one image, a default name) sharing a network folder: the
    // other's boot id made its live sync's lock read as this host's before a restart, taken over at once.
    it.runIf(machine !== undefined)(
      "leaves a lock of another machine of this host name however old",
      async () => {
        const other = {
          ...holder("self"),
          boot: "00000000-0000-0000-0000-000000000000",
          machine: "0123456789abcdef0123456789abcdef",
        };
        await lockOf(other, 24 * 3_600_000);
        expect(await take()).toEqual({
          heldBy: process.pid,
          host: `${hostname()}, another machine of that name`,
          file: file(),
        });
      },
    );

    // A lock of an older sync, or from a system with no machine id: this machine before a restart, or
    // another machine of the same name, whose live sync refreshes its lock.
    it("leaves a lock of this host name from another boot and no machine id while refreshed, then takes it over", async () => {
      const { machine: _, ...unplaced } = { ...holder("self"), boot: "00000000-0000-0000-0000-000000000000" };
      await lockOf(unplaced, 30_000);
      expect(await take()).toEqual({
        heldBy: process.pid,
        host: `${hostname()}, another machine of that name or this one before a restart`,
        leaseMs: 120_000,
        file: file(),
      });
      await lockOf(unplaced, 10 * 60_000);
      expect(await take()).toBe("taken");
    });

    // A run killed with SIGKILL as it took a stale lock over left its marker, which blocked every later
    // takeover of that lock until removed by hand: every run waited, then failed, naming a gone process.
    describe("past the marker of a run that was taking it over", () => {
      const stale = `${JSON.stringify({ pid: DEAD_PID, startedAt: "2026-01-01T00:00:00Z" })}\n`;
      const markerBy = async (text: string, modifiedAgoMs = 0) => {
        await writeFile(file(), stale);
        const marker = markerOf(folder, stale);
        await writeFile(marker, text);
        const when = new Date(Date.now() - modifiedAgoMs);
        await utimes(marker, when, when);
      };

      it("takes it over when the marker's process no longer runs, and leaves nothing beside it", async () => {
        await markerBy(`${JSON.stringify({ ...holder("self"), pid: DEAD_PID })}\n`);
        expect(await take()).toBe("taken");
        expect(await readdir(folder)).toEqual([]);
      });

      it("takes it over past an older sync's marker, its process id alone", async () => {
        await markerBy(`${DEAD_PID}\n`);
        expect(await take()).toBe("taken");
        expect(await readdir(folder)).toEqual([]);
      });

      it("waits while the marker's process runs: it is taking the lock over", async () => {
        await markerBy(`${JSON.stringify(holder(process.ppid))}\n`, 3_600_000);
        expect(await take()).toEqual({ heldBy: DEAD_PID, file: file() });
      });

      it("waits on a marker of another container for the lease, then takes it over", async () => {
        const container = {
          ...holder("self"),
          pid: 1,
          host: "3f2a9c1d7e4b",
          pidNamespace: "pid:[4026532999]",
        };
        await markerBy(`${JSON.stringify(container)}\n`, 30_000);
        expect(await take()).toEqual({ heldBy: DEAD_PID, file: file() });
        await markerBy(`${JSON.stringify(container)}\n`, 10 * 60_000);
        expect(await take()).toBe("taken");
      });

      it("is taken over by exactly one of the runs that find it at once", async () => {
        for (let round = 0; round < 20; round++) {
          await markerBy(`${JSON.stringify({ ...holder("self"), pid: DEAD_PID })}\n`);
          const results = await Promise.all(Array.from({ length: 8 }, () => takeRunLock(folder)));
          const taken = results.filter((result): result is RunLock => "release" in result);
          expect(taken, `round ${round}`).toHaveLength(1);
          expect(await readdir(folder)).toEqual([RUN_LOCK_FILE]);
          await Promise.all(taken.map((lock) => lock.release()));
        }
      });

      // Past 8 stale markers a run gave up its turn as if a live run had it: the lock was blocked for good.
      it("takes it over past more stale markers than a run passes before it counts them", async () => {
        await writeFile(file(), stale);
        let marker = markerOf(folder, stale);
        for (let killed = 0; killed < 12; killed++) {
          const text = `${JSON.stringify({ ...holder("self", `killed ${killed}`), pid: DEAD_PID })}\n`;
          await writeFile(marker, text);
          marker = markerOf(folder, `${stale}${text}`);
        }
        expect(await readdir(folder)).toHaveLength(13);
        expect(await take()).toBe("taken");
        expect(await readdir(folder)).toEqual([]);
      });

      // Older syncs' markers name a process id alone (pid 1 in two containers): the second marker, named
      // after the lock and the first, read as the first and so led back to itself, passed again and again
      // until the run gave up, as if a live run had the turn.
      it("takes it over past two stale markers that read the same", async () => {
        await markerBy(`${DEAD_PID}\n`);
        await writeFile(markerOf(folder, `${stale}${DEAD_PID}\n`), `${DEAD_PID}\n`);
        expect(await take()).toBe("taken");
        expect(await readdir(folder)).toEqual([]);
      });

      // A run killed after it removed the stale lock, before its marker: nothing passes that marker again.
      it("removes the markers and files of runs killed outright as it takes the lock", async () => {
        await writeFile(markerOf(folder, "a lock gone since"), `${DEAD_PID}\n`);
        const old = new Date(Date.now() - 10 * 60_000);
        const left = path.join(folder, `${RUN_LOCK_FILE}.0b6e2c1a-left.tmp`);
        await writeFile(left, "");
        await utimes(left, old, old);
        const fresh = path.join(folder, `${RUN_LOCK_FILE}.5d1f0a9e-fresh.tmp`);
        await writeFile(fresh, "");
        const lock = await takeRunLock(folder);
        expect((await readdir(folder)).sort()).toEqual([RUN_LOCK_FILE, path.basename(fresh)].sort());
        if ("release" in lock) await lock.release();
      });
    });

    // What keeps a live sync's lock from being taken over by a sync in another container.
    it("refreshes a lock it holds", async () => {
      vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
      try {
        const lock = await takeRunLock(folder);
        const old = new Date(Date.now() - 10 * 60_000);
        await utimes(file(), old, old);
        vi.advanceTimersByTime(60_000);
        // The refresh reads the lock (still this run's?) before it touches it: a few turns of the loop.
        const refreshed = async () => (await stat(file())).mtimeMs > old.getTime() + 5 * 60_000;
        for (let tries = 0; tries < 200 && !(await refreshed()); tries++) {
          await sleep(5);
        }
        expect((await stat(file())).mtimeMs).toBeGreaterThan(old.getTime() + 5 * 60_000);
        if ("release" in lock) await lock.release();
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
