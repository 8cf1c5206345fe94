import { readFile } from 'node:fs/promises'
import { AppError } from '@tollgate/core'
import { pino } from 'pino'
import { parseFacilitatorConfig } from './facilitator-config.js'
import { type FacilitatorServer, startFacilitatorServer } from './start-facilitator-server.js'

/**
 * Runs the facilitator standalone (`tollgate facilitator`, `tollgate-facilitator`): reads the config
 * file at `configPath` (`port` replaces its port), logs the listening URL, and stops the server on
 * SIGINT or SIGTERM. Throws `invalid_config` naming the file or the bad field.
 */
export async function runFacilitatorCommand(
  input: { configPath: string; port?: string | undefined },
  env: Record<string, string | undefined>,
): Promise<FacilitatorServer> {
  const json = await readJsonConfigFile(input.configPath)
  const config = parseFacilitatorConfig(
    input.port === undefined ? json : { ...(json as object), port: Number(input.port) },
    env,
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
  return server
}

/** Reads a JSON configuration file; throws `invalid_config` naming the file when it is unreadable or not JSON. */
export async function readJsonConfigFile(path: string): Promise<unknown> {
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
