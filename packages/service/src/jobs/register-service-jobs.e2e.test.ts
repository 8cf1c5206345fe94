import { expect, test } from 'vitest'
import { openTokenAccountJobKind } from '../rails/chains/run-open-token-account-job.js'
import { sweepJobKind } from '../rails/chains/run-sweep-job.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness } from '../testing/harness.js'
import { enqueueJob } from './enqueue-job.js'

describeEachDatabase('registerServiceJobs', (getDb) => {
  // A kind without a handler is never claimed: its jobs would sit in the table forever, silently.
  test('behavior: the rails jobs the service enqueues (sweeps, token accounts) have handlers that run', async () => {
    const h = await createHarness(getDb())
    const kinds = [sweepJobKind, openTokenAccountJobKind]
    const sweep = await enqueueJob(h.deps.db, h.deps, {
      kind: sweepJobKind,
      payload: { transferId: 'itx_unknown' },
      key: 'itx_unknown',
      maxAttempts: 1,
    })
    const open = await enqueueJob(h.deps.db, h.deps, {
      kind: openTokenAccountJobKind,
      payload: {
        environment: 'test',
        chain: 'base',
        asset: 'USDC',
        owner: '0x0000000000000000000000000000000000000001',
      },
      key: 'base-owner',
      maxAttempts: 1,
    })
    expect([sweep, open]).toEqual([expect.any(String), expect.any(String)])
    expect(await h.runner.runDue()).toBeGreaterThanOrEqual(2)
    const left = await h.deps.db
      .selectFrom('jobs')
      .select(['kind', 'attempts'])
      .where('kind', 'in', kinds)
      .execute()
    // Each ran once: finished (deleted) or failed for good after its one attempt, never left unclaimed.
    expect(left.filter((job) => job.attempts === 0)).toEqual([])
  })
})
