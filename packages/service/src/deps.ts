import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Database } from './db/database.js'
import type { Rails } from './rails/types.js'
import type { ServiceSettings } from './settings.js'

/** Source of the current time; a dependency so tests can fix it. */
export type Clock = { now(): Date }

/** Source of prefixed ids (`mer_…`, `key_…`, `req_…`); a dependency so tests can make them deterministic. */
export type IdGenerator = { create(prefix: string): string }

/** What the service's plain functions may touch, built once by the composition root (`main.ts`). */
export type Deps = {
  db: Kysely<Database>
  clock: Clock
  ids: IdGenerator
  logger: Logger
  /** Chains, providers, FX and screening (docs/rails.md). */
  rails: Rails
  settings: ServiceSettings
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() }

/** Random bytes per id (96 bits) and ids drawn from one call to the system's generator. */
const idBytes = 12
const idsPerDraw = 256

/**
 * Creates ids `<prefix>_<24 hex chars>` from 96 random bits. The bytes are drawn 256 ids at a time
 * (every id still takes its own 12 bytes, never shared): one `randomBytes` call per id cost a
 * measurable share of a GET's CPU, as every request takes an id (`req_…`).
 */
export function createIdGenerator(): IdGenerator {
  let pool = Buffer.alloc(0)
  let offset = 0
  return {
    create: (prefix) => {
      if (offset + idBytes > pool.length) {
        pool = randomBytes(idBytes * idsPerDraw)
        offset = 0
      }
      const id = `${prefix}_${pool.toString('hex', offset, offset + idBytes)}`
      offset += idBytes
      return id
    },
  }
}
