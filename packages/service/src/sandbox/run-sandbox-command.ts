import { parseArgs } from 'node:util'
import type { Devnet, EvmFork } from '@tollgate/devnet'
import { parseServiceEnv } from '../env.js'
import { createLogger } from '../http/create-logger.js'
import { createSandboxFacilitator, createX402Mounts } from './create-x402-mounts.js'
import { startSandbox } from './start-sandbox.js'

/** EVM networks to run as forks and extra addresses to fund (docs/fork-testing.md). */
export type SandboxDevnetFlags = { forks?: readonly EvmFork[]; fund?: readonly `0x${string}`[] }

/** What {@link runSandboxCommand} needs beside argv and the environment. */
export type RunSandboxCommandOptions = {
  /** Starts the local chains (`tollgate start` passes `@tollgate/devnet`'s); default a dynamic import of it. */
  startDevnet?: (evm: SandboxDevnetFlags) => Promise<Devnet>
  /** `--fork` / `--fund` of the command line, parsed by the caller (the devnet package owns the flags). */
  devnet?: SandboxDevnetFlags
  out: (text: string) => void
  err: (text: string) => void
}

/**
 * The sandbox of `npm start` and `tollgate start` (`argv`: `[--port <n>]`, the devnet flags already
 * taken out into `options.devnet`): the service, the
 * facilitator (/facilitator) and the demo paid resource (/demo/paid) on one server, until SIGINT or
 * SIGTERM. Prints progress, then the URLs and the API key; exits the process when stopped.
 */
export async function runSandboxCommand(
  argv: string[],
  source: Record<string, string | undefined>,
  options: RunSandboxCommandOptions,
): Promise<void> {
  const { out, err, startDevnet } = options
  const env = parseServiceEnv(source)
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } } })
  const port = values.port === undefined ? env.PORT : parseServiceEnv({ PORT: values.port }).PORT
  const logger = createLogger({ level: env.LOG_LEVEL })
  out('Starting the Tollgate sandbox: database, local chains, facilitator…')
  const sandbox = await startSandbox({
    port,
    host: env.HOST,
    dataDir: env.TOLLGATE_DATA_DIR,
    ...(env.DATABASE_URL === undefined ? {} : { databaseUrl: env.DATABASE_URL }),
    ...(env.TOLLGATE_MANIFEST === undefined ? {} : { manifestPath: env.TOLLGATE_MANIFEST }),
    devnet: options.devnet ?? {},
    ...(startDevnet ? { startDevnet: () => startDevnet(options.devnet ?? {}) } : {}),
    logger,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    trustedProxies: env.TOLLGATE_TRUSTED_PROXIES,
    createFacilitator: createSandboxFacilitator,
    runJobs: env.TOLLGATE_IN_PROCESS_JOBS,
    mounts: createX402Mounts,
  }).catch((error: unknown) => {
    err(`Tollgate sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })

  const { manifest } = sandbox
  const chainOf = new Map(Object.entries(manifest.chains).map(([chain, network]) => [network, chain]))
  const describeNetwork = (id: string) => {
    const fork = sandbox.devnet.networks[id]?.fork
    const name = chainOf.get(id)
    const label = name ? `${name} ${id}` : id
    return fork ? `${label} (fork at block ${fork.blockNumber})` : label
  }
  out(`
Tollgate sandbox ready in ${process.uptime().toFixed(1)} s
  API         ${manifest.apiUrl}
  API key     ${manifest.apiKey}
  Docs        ${manifest.apiUrl.replace(/\/api\/v1$/, '')}/docs
  Facilitator ${manifest.facilitatorUrl}
  Demo (paid) ${manifest.demoResourceUrl}
  Networks    ${Object.keys(manifest.networks).map(describeNetwork).join(',\n              ') || '(none)'}
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
}
