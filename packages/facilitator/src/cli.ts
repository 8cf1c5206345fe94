// `tollgate-facilitator --config facilitator.json [--port 4021]`: runs the facilitator standalone.
// The composition root: the only place that reads argv, the environment and files.
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { AppError, isAppError } from '@tollgate/core'
import { pino } from 'pino'
import { parseFacilitatorConfig } from './facilitator-config.js'
import { startFacilitatorServer } from './start-facilitator-server.js'

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
  const json = await readConfigFile(path)
  const config = parseFacilitatorConfig(
    values.port === undefined ? json : { ...(json as object), port: Number(values.port) },
    process.env,
  )
  const logger = pino({ level: config.logLevel, base: { service: 'tollgate-facilitator' } })
  const server = await startFacilitatorServer(config, { logger })
  const supported = await server.facilitator.getSupported()
  logger.info(
    { url: server.url, kinds: supported.kinds.length, signers: supported.signers },
    'facilitator listening',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) {
      return
    }
    stopping = true
    logger.info({ signal }, 'stopping')
    await server.stop()
    logger.flush()
  }
  process.once('SIGINT', (signal) => void stop(signal))
  process.once('SIGTERM', (signal) => void stop(signal))
}

async function readConfigFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw configFileError(path, `cannot read it (${(error as Error).message})`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw configFileError(path, `not valid JSON (${(error as Error).message})`)
  }
}

function configFileError(path: string, problem: string): AppError<'invalid_config'> {
  return new AppError('invalid_config', {
    context: { issues: { config: problem } },
    message: `${path}: ${problem}`,
  })
}

main().catch((error: unknown) => {
  console.error(isAppError(error) || error instanceof Error ? error.message : error)
  process.exitCode = 1
})
