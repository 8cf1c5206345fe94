import { scopeMigratorIntrospection } from '@tollgate/facilitator'
import { type Kysely, type Migration, Migrator } from 'kysely'
import * as m0001 from './0001-merchants.js'
import * as m0002 from './0002-ledger.js'
import * as m0003 from './0003-customers.js'
import * as m0004 from './0004-jobs-events.js'
import * as m0005 from './0005-webhooks.js'
import * as m0006 from './0006-rails-chain.js'
import * as m0007 from './0007-rails-fiat.js'
import * as m0008 from './0008-payment-sessions.js'
import * as m0009 from './0009-payouts.js'
import * as m0010 from './0010-deposits-swaps.js'
import * as m0011 from './0011-x402.js'
import * as m0012 from './0012-payment-pages.js'
import * as m0013 from './0013-crypto-send-attempts.js'
import * as m0014 from './0014-sweep-index.js'
import * as m0015 from './0015-jobs-metrics-index.js'

/** Every migration, by name; names sort in the order they apply. Add new files here. */
export const migrations: Record<string, Migration> = {
  '0001-merchants': m0001,
  '0002-ledger': m0002,
  '0003-customers': m0003,
  '0004-jobs-events': m0004,
  '0005-webhooks': m0005,
  '0006-rails-chain': m0006,
  '0007-rails-fiat': m0007,
  '0008-payment-sessions': m0008,
  '0009-payouts': m0009,
  '0010-deposits-swaps': m0010,
  '0011-x402': m0011,
  '0012-payment-pages': m0012,
  '0013-crypto-send-attempts': m0013,
  '0014-sweep-index': m0014,
  '0015-jobs-metrics-index': m0015,
}

/**
 * Applies the pending migrations (Kysely's migrator: a lock table, then each file once, in name
 * order); `schema` keeps the migration bookkeeping inside that schema (test isolation), and the
 * migrator looks for its tables only there (scopeMigratorIntrospection).
 */
export async function migrateToLatest(db: Kysely<unknown>, options: { schema?: string } = {}): Promise<void> {
  const migrator = new Migrator({
    db: scopeMigratorIntrospection(db, options.schema),
    provider: { getMigrations: async () => migrations },
    ...(options.schema === undefined ? {} : { migrationTableSchema: options.schema }),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    throw new Error(`Database migration ${failed ?? ''} failed: ${describe(error)}`, { cause: error })
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
