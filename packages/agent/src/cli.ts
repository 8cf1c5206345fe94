import { runCli } from './run-cli.js'

// `tollgate-pay` entry point (packages/agent/bin/tollgate-pay.js loads it): the composition root that
// reads the process environment. `tollgate-pay <url>` is short for `tollgate-pay pay <url>`.
const args = process.argv.slice(2)
const first = args[0]
const status = await runCli(
  first !== undefined && first !== 'pay' && !first.startsWith('-') ? ['pay', ...args] : args,
  {
    env: process.env,
    fetch: globalThis.fetch,
    stdout: process.stdout,
    stderr: process.stderr,
  },
)
process.exitCode = status
