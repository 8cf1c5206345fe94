/**
 * Test support for the packages' hostile-input tests: hostile JSON values and bodies derived from
 * a valid one (see docs/input-limits.md).
 *
 * @module
 */
export {
  BAD_DATE_STRINGS,
  BAD_NUMBER_STRINGS,
  BAD_TEXT_STRINGS,
  DEEP_MARKER,
  deepNesting,
  hostileValue,
  listJsonPaths,
  MALFORMED_BODIES,
  replaceAtPath,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from './hostile-json.js'
export type { KeepAliveAnswer, KeepAliveClient } from './keep-alive-client.js'
export { createKeepAliveClient } from './keep-alive-client.js'
