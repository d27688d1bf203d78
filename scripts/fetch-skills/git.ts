import { type SimpleGit, simpleGit } from "simple-git";

/** A hung network read should fail the build, not stall it forever. */
const GIT_SILENCE_LIMIT_MS = 10 * 60 * 1000;

/**
 * The build machine's git settings that reach git: simple-git strips every `GIT_*` variable unless named
 * here. These come from whoever runs the build (never from an upstream repository) and are what a build
 * behind a proxy or with private mirrors needs: a CA bundle, an SSH command, a config file with
 * credentials or `url.<base>.insteadOf` rewrites.
 */
const OPERATOR_GIT_ENVIRONMENT = [
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_SSH_COMMAND",
  "GIT_TERMINAL_PROMPT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
] as const;

/** Git in `baseDir`; once `signal` aborts, its running command is interrupted and later ones fail at once. */
export function gitAt(baseDir: string | undefined, signal: AbortSignal | undefined): SimpleGit {
  return simpleGit({
    ...(baseDir === undefined ? {} : { baseDir }),
    ...(signal === undefined ? {} : { abort: signal }),
    timeout: { block: GIT_SILENCE_LIMIT_MS },
    allowEnvironment: OPERATOR_GIT_ENVIRONMENT,
  });
}
