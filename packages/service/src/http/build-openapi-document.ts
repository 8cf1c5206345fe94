import { composeService } from '../compose/compose-service.js'
import { openDatabase } from '../db/open-database.js'
import { createLogger } from './create-logger.js'

/**
 * The service's OpenAPI document (`GET /api/v1/openapi.json`) built in process, without a server:
 * the sandbox composition over an in-memory database, never started, asked once. `npm run
 * client:generate` types @tollgate/client from it.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({})
  const service = composeService({
    db: database.db,
    logger: createLogger({ level: 'silent' }),
    rails: { kind: 'sandbox' },
  })
  try {
    const response = await service.app.request('/api/v1/openapi.json')
    return (await response.json()) as Record<string, unknown>
  } finally {
    await service.stop()
    await database.close()
  }
}
