import path from "node:path";

/**
 * Where each client loads skills from, in the user's home (personal) and in a repository (project), as
 * its documentation says (docs/sync.md names the sources). `agents` is the cross-client `.agents/skills`
 * that Codex reads and GitHub Copilot reads too.
 */
export const CLIENT_FOLDERS = {
  claude: { personal: ".claude/skills", project: ".claude/skills" },
  codex: { personal: ".agents/skills", project: ".agents/skills" },
  copilot: { personal: ".copilot/skills", project: ".github/skills" },
  agents: { personal: ".agents/skills", project: ".agents/skills" },
} as const;

type ClientName = keyof typeof CLIENT_FOLDERS;

export function isClientName(name: string): name is ClientName {
  return Object.hasOwn(CLIENT_FOLDERS, name);
}

/** The skills folder of `client`: below `home`, or with `project` below `cwd` (the repository's root). */
export function clientFolder(
  client: ClientName,
  project: boolean,
  where: { readonly home: string; readonly cwd: string },
): string {
  const folders = CLIENT_FOLDERS[client];
  return project ? path.resolve(where.cwd, folders.project) : path.join(where.home, folders.personal);
}
