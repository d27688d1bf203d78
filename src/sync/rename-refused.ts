/**
 * What to do when the system refuses to rename a file or folder sync moves (EPERM, EBUSY), which its words
 * ("operation not permitted, rename …") do not say; undefined for any other error. On Windows a program
 * holds a file open; elsewhere EPERM means an immutable flag or a folder with the sticky bit, and EBUSY a
 * mount point. `held`: what the program holds open on Windows ("a file in it", "it").
 */
export function renameRefused(
  error: unknown,
  held: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall !== "rename") return undefined;
  if (platform === "win32") {
    return code === "EPERM" || code === "EBUSY"
      ? `a program may hold ${held} open (an editor, a virus scanner): close it, then run sync again`
      : undefined;
  }
  if (code === "EPERM") {
    return "it or the folder it is in may be immutable (lsattr shows it, or ls -lO on macOS), or another user's in a folder with the sticky bit: change that, then run sync again";
  }
  if (code === "EBUSY") return "it may be a mount point: unmount it, then run sync again";
  return undefined;
}
