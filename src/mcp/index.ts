export { answerKeeping, fileBytesOf } from "./answer-traits.js";
export {
  ENVELOPE_KEYS,
  envelopeVersionMessage,
  namingEnvelopeKey,
  namingEnvelopeVersion,
  namingMissingEnvelope,
  unclaimedEnvelopeError,
  unclaimedEnvelopeKeys,
} from "./envelope-version.js";
export { formatPacks } from "./list-packs.js";
export {
  answersInParamsWords,
  inParamsWords,
  requestAsMeant,
  requestsAsMeant,
} from "./requests-as-meant.js";
export { MAX_READ_BYTES } from "./resource-read.js";
export { handshakeOnModernConnection, methodNotFoundMessage, servedMethods } from "./served-methods.js";
export {
  buildMcpDeps,
  listedSkills,
  type McpDeps,
  MODERN_REVISION,
  type ServerFactory,
  type ServerInfo,
  serverFactoryFor,
  steeringFor,
  TOOL_NAMES,
  warmPreviews,
} from "./server.js";
export { SkillResources } from "./skill-resources.js";
