import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { systemClock } from '../deps.js'
import type { ServiceSettings } from '../settings.js'
import { createFakePayoutRails, type FakePayoutRails } from './fake-payout-rails.js'
import { createHarness, type Harness } from './harness.js'

/** A harness whose rails are {@link FakePayoutRails}, and a clock tests can move (`clock.offsetMs`). */
export type PayoutHarness = Harness & { rails: FakePayoutRails; clock: { offsetMs: number } }

/** Builds a {@link PayoutHarness}: the harness's merchants A and B with fake payout rails. */
export async function createPayoutHarness(
  db: Kysely<Database>,
  settings: Partial<ServiceSettings> = {},
): Promise<PayoutHarness> {
  const clock = { offsetMs: 0 }
  const movable = { now: () => new Date(systemClock.now().getTime() + clock.offsetMs) }
  let rails: FakePayoutRails | undefined
  const h = await createHarness(db, {
    rails: (base) => {
      rails = createFakePayoutRails({ ...base, clock: movable })
      return rails
    },
    settings,
  })
  if (!rails) {
    throw new Error('the harness did not build its rails')
  }
  h.deps.clock = movable
  return { ...h, rails, clock }
}
