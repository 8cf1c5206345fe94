import { DEVNET_FLAGS_HELP, parseDevnetFlags } from '@tollgate/devnet'
import { runSandboxCommand } from './sandbox/run-sandbox-command.js'

// Composition root of the sandbox without the CLI (tests and benchmarks spawn this file); `npm start`
// runs the same through `tollgate start` (packages/cli). Takes `--port` and the devnet's flags.
const usage = `Usage: node packages/service/src/main.ts [--port <n>] [--fork <caip2>=<rpc-url>]... [--fund <address>]...\n\n${DEVNET_FLAGS_HELP}`
const argv = process.argv.slice(2)
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(usage)
  process.exit(0)
}
let flags: ReturnType<typeof parseDevnetFlags>
try {
  flags = parseDevnetFlags(argv)
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`)
  process.exit(2)
}
await runSandboxCommand(flags.rest, process.env, {
  devnet: { forks: flags.forks, fund: flags.fund },
  out: (text) => console.log(text),
  err: (text) => console.error(text),
})
