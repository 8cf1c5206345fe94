// `tollgate-facilitator --config facilitator.json [--port 4021]`: runs the facilitator standalone
// (the same as `tollgate facilitator`). The composition root: the only place that reads argv and the environment.
import { parseArgs } from 'node:util'
import { isAppError } from '@tollgate/core'
import { runFacilitatorCommand } from './run-facilitator-command.js'

const USAGE = `usage: tollgate-facilitator --config <file.json> [--port <port>]

Runs the x402 facilitator (POST /verify, POST /settle, GET /supported, /health, /metrics).
The config file names the networks, RPC URLs, assets and the env vars that hold keys;
see docs/facilitator.md.`

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', short: 'c' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    console.log(USAGE)
    return
  }
  const path = values.config ?? process.env.TOLLGATE_FACILITATOR_CONFIG
  if (!path) {
    console.error(USAGE)
    process.exitCode = 2
    return
  }
  await runFacilitatorCommand({ configPath: path, port: values.port }, process.env)
}

main().catch((error: unknown) => {
  console.error(isAppError(error) || error instanceof Error ? error.message : error)
  process.exitCode = 1
})
