import { parseArgs } from 'node:util'
import { DEVNET_FLAGS_HELP, type DevnetFlags, parseDevnetFlags } from '@tollgate/devnet'
import { parseServiceEnv } from './env.js'
import { createLogger } from './http/create-logger.js'
import { createSandboxFacilitator, createX402Mounts } from './sandbox/create-x402-mounts.js'
import { startSandbox } from './sandbox/start-sandbox.js'

// Composition root of `npm start`: the only module that reads the environment. The facilitator
// (/facilitator) and the demo paid resource (/demo/paid) join the service on the same server.
const env = parseServiceEnv(process.env)
let devnetFlags: DevnetFlags = { forks: [], fund: [], rest: [] }
try {
  devnetFlags = parseDevnetFlags(process.argv.slice(2))
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${DEVNET_FLAGS_HELP}`)
  process.exit(2)
}
const { values } = parseArgs({
  args: devnetFlags.rest,
  options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
})
if (values.help) {
  console.log(
    `Usage: npm start -- [--port <n>] [--fork <caip2>=<rpc-url>]... [--fund <address>]...\n\n${DEVNET_FLAGS_HELP}`,
  )
  process.exit(0)
}
const port = values.port === undefined ? env.PORT : parseServiceEnv({ PORT: values.port }).PORT
const logger = createLogger({ level: env.LOG_LEVEL })

const sandbox = await startSandbox({
  port,
  host: env.HOST,
  dataDir: env.TOLLGATE_DATA_DIR,
  ...(env.DATABASE_URL === undefined ? {} : { databaseUrl: env.DATABASE_URL }),
  ...(env.TOLLGATE_MANIFEST === undefined ? {} : { manifestPath: env.TOLLGATE_MANIFEST }),
  logger,
  devnet: { forks: devnetFlags.forks, fund: devnetFlags.fund },
  rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
  createFacilitator: createSandboxFacilitator,
  runJobs: env.TOLLGATE_IN_PROCESS_JOBS,
  mounts: createX402Mounts,
}).catch((error: unknown) => {
  console.error(`Tollgate sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})

const { manifest } = sandbox
const describeNetwork = (id: string) => {
  const fork = sandbox.devnet.networks[id]?.fork
  return fork ? `${id} (fork at block ${fork.blockNumber})` : id
}
console.log(`
Tollgate sandbox ready in ${process.uptime().toFixed(1)} s
  API         ${manifest.apiUrl}
  API key     ${manifest.apiKey}
  Docs        ${manifest.apiUrl.replace(/\/api\/v1$/, '')}/docs
  Facilitator ${manifest.facilitatorUrl}
  Demo (paid) ${manifest.demoResourceUrl}
  Networks    ${Object.keys(manifest.networks).map(describeNetwork).join(', ') || '(none)'}
  Webhooks    ${manifest.webhooks.listenCommand}
  Manifest    ${sandbox.manifestPath}
Ctrl-C stops everything.
`)

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) {
      process.exit(1)
    }
    stopping = true
    sandbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
