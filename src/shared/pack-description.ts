// Imports nothing: the image's skills stage copies this file for the fetcher, without the rest of src/.

/**
 * A pack's description is shown to models on every turn: a sentence or two, at most this many characters,
 * wherever it is written (a source of skills.toml, or PACK_DESCRIPTIONS).
 */
export const MAX_PACK_DESCRIPTION = 500;
