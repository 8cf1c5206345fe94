import { runSandboxCommand } from './sandbox/run-sandbox-command.js'

// Composition root of the sandbox without the CLI (tests and benchmarks spawn this file); `npm start`
// runs the same through `tollgate start` (packages/cli).
await runSandboxCommand(process.argv.slice(2), process.env, {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
})
