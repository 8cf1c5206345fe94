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

/** Creates ids `<prefix>_<24 hex chars>` from 96 random bits. */
export function createIdGenerator(): IdGenerator {
  return { create: (prefix) => `${prefix}_${randomBytes(12).toString('hex')}` }
}
