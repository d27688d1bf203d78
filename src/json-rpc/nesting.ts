/**
 * How deep a message's arrays and objects may nest: an MCP message nests five or six levels, and what reads
 * a message after its check (see textProblemIn) walks it recursively.
 */
export const MAX_NESTING = 64;

/** The refusal of a message nested deeper than MAX_NESTING, in the words HTTP and stdio both answer. */
export const TOO_DEEP = `Invalid Request: JSON nested deeper than ${MAX_NESTING} levels; an MCP message needs a few.`;
