/**
 * What to do when the system refuses to rename a file or folder sync moves (EPERM, EBUSY, and EACCES on
 * Windows), which its words ("operation not permitted, rename …") do not say; undefined for any other
 * error. On Windows a program holds a file open (a virus scanner or the search indexer answers EACCES as
 * well, which graceful-fs also retries there for that reason), or the file's security settings forbid the
 * change; elsewhere EPERM means an immutable flag or a folder with the sticky bit, and EBUSY a mount
 * point. `held`: what the program holds open on Windows ("a file in it", "it").
 */
export function renameRefused(
  error: unknown,
  held: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall !== "rename") return undefined;
  if (platform === "win32") {
    const open = `a program may hold ${held} open (an editor, a virus scanner)`;
    if (code === "EPERM" || code === "EBUSY") return `${open}: close it, then run sync again`;
    return code === "EACCES"
      ? `${open}, or its security settings may not let you change it: close it or give yourself that right, then run sync again`
      : undefined;
  }
  if (code === "EPERM") {
    return "it or the folder it is in may be immutable (lsattr shows it, or ls -lO on macOS), or another user's in a folder with the sticky bit: change that, then run sync again";
  }
  if (code === "EBUSY") return "it may be a mount point: unmount it, then run sync again";
  return undefined;
}
