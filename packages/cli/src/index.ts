/**
 * The `tollgate` command: `start` (sandbox), `serve` (production), `pay`, `facilitator` and the
 * admin commands, on citty. `runTollgate(argv, io)` runs it in process.
 *
 * @example
 * const status = await runTollgate(['--help'], { env: process.env, stdout: process.stdout, stderr: process.stderr, fetch, signal })
 *
 * @module
 */
export { createTollgateCommand, passThroughCommands } from './create-tollgate-command.js'
export { runTollgate } from './run-tollgate.js'
export type { TollgateContext, TollgateIo } from './tollgate-context.js'
export { UsageError } from './tollgate-context.js'
