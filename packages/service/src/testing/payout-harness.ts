import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { createIdGenerator, systemClock } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
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
  const rails = createFakePayoutRails({
    db,
    clock: movable,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  })
  const h = await createHarness(db, { rails, settings })
  h.deps.clock = movable
  return { ...h, rails, clock }
}
