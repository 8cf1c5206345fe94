import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { systemClock } from '../deps.js'
import { sandboxPayoutHolder } from '../sandbox/sandbox-payout-accounts.js'
import type { ServiceSettings } from '../settings.js'
import { createHarness, type Harness } from './harness.js'
import { createPayoutTestRails, type PayoutTestRails } from './payout-test-rails.js'

/** A harness on {@link PayoutTestRails}, with a clock tests can move (`clock.offsetMs`). */
export type PayoutHarness = Harness & { rails: PayoutTestRails; clock: { offsetMs: number } }

/**
 * Builds a {@link PayoutHarness}: the harness's merchants A and B, A with the business name that
 * owns the sandbox's payout accounts (`sandbox/sandbox-payout-accounts.ts`).
 */
export async function createPayoutHarness(
  db: Kysely<Database>,
  settings: Partial<ServiceSettings> = {},
): Promise<PayoutHarness> {
  const clock = { offsetMs: 0 }
  const movable = { now: () => new Date(systemClock.now().getTime() + clock.offsetMs) }
  let rails: PayoutTestRails | undefined
  const h = await createHarness(db, {
    rails: (base) => {
      rails = createPayoutTestRails({ ...base, clock: movable })
      return rails
    },
    settings,
  })
  if (!rails) {
    throw new Error('the harness did not build its rails')
  }
  h.deps.clock = movable
  await db
    .updateTable('merchants')
    .set({ business_name: sandboxPayoutHolder })
    .where('id', '=', h.a.id)
    .execute()
  return { ...h, rails, clock }
}
