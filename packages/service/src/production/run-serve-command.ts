import { readJsonConfigFile } from '@tollgate/facilitator'
import { parseProductionConfig } from './production-config.js'
import { type ProductionServer, startProduction } from './start-production.js'

/**
 * `tollgate serve --config <file>`: validates the configuration file and the environment (throws
 * `invalid_config` naming each bad field before anything starts), starts the production server with
 * progress lines on `err`, prints its URL on `out`, and stops it on SIGINT or SIGTERM.
 */
export async function runServeCommand(
  input: { configPath: string; port?: string | undefined; host?: string | undefined },
  env: Record<string, string | undefined>,
  io: { out: (text: string) => void; err: (text: string) => void },
): Promise<ProductionServer> {
  const json = await readJsonConfigFile(input.configPath)
  const config = parseProductionConfig(json, {
    ...env,
    ...(input.port === undefined ? {} : { PORT: input.port }),
    ...(input.host === undefined ? {} : { HOST: input.host }),
  })
  const server = await startProduction(config, { progress: (step) => io.err(`tollgate serve: ${step}…`) })
  io.out(`Tollgate ready at ${server.url} (production: live keys, no sandbox routes). Ctrl-C stops it.`)
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (!stopping) {
        stopping = true
        void server.stop()
      }
    })
  }
  return server
}
