export { firstNotBlank, holdsMoreAfterValue, JsonExtent } from "./json-extent.js";
export { isJsonObject, jsonKindOf, messageShapeProblem } from "./message-shape.js";
export { MAX_NESTING, nestedDeeperThan, TOO_DEEP } from "./nesting.js";
export { type RepeatedKey, repeatedKeyIn, repeatedKeyMessage, repeatsTheId } from "./repeated-keys.js";
export { bytesAt, notUtf8At } from "./utf8.js";
