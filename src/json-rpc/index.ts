export { firstNotBlank, holdsMoreAfterValue, JsonExtent } from "./json-extent.js";
export { isJsonObject, messageShapeProblem } from "./message-shape.js";
