/**
 * Test helpers for code that drives a facilitator: a fake scheme whose chain is a counter.
 *
 * @module
 */
export type { FakeConfirmation, FakeScheme, FakeSchemeOptions } from './create-fake-scheme.js'
export { buildFakeRequest, createFakeScheme } from './create-fake-scheme.js'
