export { firstNotBlank, holdsMoreAfterValue, JsonExtent } from "./json-extent.js";
export { isJsonObject, jsonKindOf, messageShapeProblem } from "./message-shape.js";
export { MAX_NESTING, TOO_DEEP } from "./nesting.js";
export { doubtsTheId, type TextProblem, textProblemIn, textProblemMessage } from "./text-check.js";
export { bytesAt, notUtf8At } from "./utf8.js";
