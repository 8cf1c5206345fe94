import { runCli } from './run-cli.js'

// `tollgate` entry point (packages/agent/bin/tollgate.js loads it): the composition root that
// reads the process environment.
const status = await runCli(process.argv.slice(2), {
  env: process.env,
  fetch: globalThis.fetch,
  stdout: process.stdout,
  stderr: process.stderr,
})
process.exitCode = status
