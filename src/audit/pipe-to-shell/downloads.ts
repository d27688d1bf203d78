/** What the rule counts as a download: the downloaders' names, and a substitution whose command is one. */
import { commandWords } from "../shell-words.js";
import { isRemote, programOf } from "./runners.js";
import { wordReader } from "./words.js";

export const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;

/**
 * Whether `word` is a process substitution or a command's output whose command is a download: `<(curl
 * …)`, `"$(wget …)"`, `` `curl …` ``, the downloader named by its path, escaped from an alias or run by a
 * runner (`$(/usr/bin/curl …)`, `$(\curl …)`, `$(command curl …)`, `<(sudo wget …)`: each was missed).
 * The substitution's first command is read with the word reader, once.
 */
export function substitutedDownload(word: string): boolean {
  const opening = SUBSTITUTION_OPENING.exec(word);
  // Only a substitution naming a downloader is read for its program: each costs a reading of its words.
  if (opening === null || !DOWNLOADER_NAME.test(word)) return false;
  const found = programOf(wordReader(commandWords(word.slice(opening[0].length))), false);
  if (found === undefined || isRemote(found)) return false;
  return DOWNLOAD_PROGRAM.test(found.text.slice(found.text.lastIndexOf("/") + 1));
}

const SUBSTITUTION_OPENING = /^(?:<\(|"?\$\(|"?`)/;
const DOWNLOAD_PROGRAM = /^(?:curl|wget)$/i;
/** What a substitution of a download names somewhere: a text without it holds none. */
export const DOWNLOADER_NAME = /curl|wget/i;
