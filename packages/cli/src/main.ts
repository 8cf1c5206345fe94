import { runTollgate } from './run-tollgate.js'

// Composition root of the `tollgate` command (bin/tollgate.js loads it): the process's argv,
// environment and streams. Ctrl-C (or SIGTERM) stops the long-running `listen` and `worker`.
const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort())
}
process.exitCode = await runTollgate(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  fetch: globalThis.fetch,
  signal: controller.signal,
})
