import { readFileSync } from "node:fs";
import { isJsonObject } from "../src/json-rpc/index.js";
import { errorMessage, unreadableFile } from "../src/shared/index.js";

/** What `file` holds as JSON. Throws, naming the file, when it cannot be read or is not JSON. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(unreadableFile(file, error));
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${errorMessage(error)}`);
  }
}

/**
 * The entries of the JSON object in `file`. Throws, naming the file, when it cannot be read or parsed or
 * holds anything but an object; `holding` says what the object should map, for that message.
 */
export function readJsonObject(file: string, holding: string): [string, unknown][] {
  const raw = readJsonFile(file);
  if (!isJsonObject(raw)) {
    throw new Error(`${file}: expected a JSON object of ${holding}`);
  }
  return Object.entries(raw);
}
