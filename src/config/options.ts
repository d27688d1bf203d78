/** The saved index's file, in the skills folder: hidden, so that the catalog does not take it for a pack. */
export const SAVED_INDEX_NAME = ".search-index";

/**
 * The command line's options, declared once: parseArgs takes them, USAGE lists them, and a wrong one is
 * refused with their names.
 */
interface CommandOption {
  readonly type: "boolean" | "string";
  readonly multiple?: boolean;
  readonly short?: string;
  /** What USAGE's list shows before the help: `--pack SELECTOR`. */
  readonly shown: string;
  readonly help: string;
}

export const OPTIONS = {
  stdio: {
    type: "boolean",
    shown: "--stdio",
    help: "serve over stdin/stdout instead of HTTP (same as TRANSPORT=stdio)",
  },
  "build-index": {
    type: "boolean",
    shown: "--build-index",
    help:
      "build the search index of the skills (SKILLS_DIR, as SKILL_PACKS selects them) and the digests of " +
      `their files, save them to SKILLS_DIR/${SAVED_INDEX_NAME} and exit; a server started on the same skills then ` +
      "loads them instead (what no longer fits is worked out again)",
  },
  steering: {
    type: "boolean",
    shown: "--steering",
    help:
      "print a line for CLAUDE.md, AGENTS.md or an agent's system prompt that tells a model when to look for " +
      "these skills, and exit",
  },
  pack: {
    type: "string",
    multiple: true,
    shown: "--pack SELECTOR",
    help: "with --steering: narrows the line as X-Skill-Pack would (repeatable, or a comma list)",
  },
  version: { type: "boolean", shown: "--version", help: "print the version and exit" },
  help: { type: "boolean", short: "h", shown: "-h, --help", help: "show this help" },
} as const satisfies Record<string, CommandOption>;
