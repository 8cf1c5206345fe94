import { createApp } from '../app.js'
import { openDatabase } from '../db/open-database.js'
import { createIdGenerator, systemClock } from '../deps.js'
import { createRails } from '../rails/create-rails.js'
import { createDefaultSettings } from '../settings.js'
import { createLogger } from './create-logger.js'
import { createOutboundHttp } from './create-outbound-http.js'

/**
 * The service's OpenAPI document (`GET /api/v1/openapi.json`) built in process, without a server:
 * the app over an in-memory database, asked once. `npm run client:generate` types @tollgate/client from it.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({})
  const webhookHttp = createOutboundHttp()
  try {
    const base = {
      db: database.db,
      clock: systemClock,
      ids: createIdGenerator(),
      logger: createLogger({ level: 'silent' }),
    }
    const app = createApp(
      { ...base, rails: createRails(base), settings: createDefaultSettings() },
      { webhookHttp },
    )
    const response = await app.request('/api/v1/openapi.json')
    return (await response.json()) as Record<string, unknown>
  } finally {
    await webhookHttp.close()
    await database.close()
  }
}
