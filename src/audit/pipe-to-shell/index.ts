/**
 * The pipe-to-shell rule: shell command lines that download a script and run it. What other modules use:
 * the rule's reader, the command lines it shares with data-upload, and where a `#` starts a comment.
 */
export { type CommandLine, commandLines } from "./command-lines.js";
export type { HashComments } from "./comments.js";
export { pipeToShell } from "./rule.js";
