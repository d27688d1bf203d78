import { readFileSync } from "node:fs";

/**
 * Whether process `pid` of this host runs (another user's counts): one ended that its parent has not yet
 * waited for (a zombie) does not.
 *
 * Node built-ins only: the image's skills stage copies this file for the fetcher, without the rest of src/.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process is there, as another user's.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A zombie answers a signal, and stays one until its parent waits for it: maybe never. Linux says so.
  const state = statOf(pid)?.[0];
  return state !== "Z" && state !== "X";
}

/**
 * The fields of `/proc/<pid>/stat` from the third on (the state first), counted after the name in
 * parentheses (which may hold anything); undefined where there is none.
 */
export function statOf(pid: number | "self"): string[] | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return line.slice(line.lastIndexOf(")") + 2).split(" ");
}
