import { beforeAll, expect, test } from 'vitest'
import { upsertCustomer } from '../customers/upsert-customer.js'
import { inTransaction } from '../db/in-transaction.js'
import { enqueueJob } from '../jobs/enqueue-job.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createWebhookEndpoint } from '../webhooks/webhook-endpoints.js'
import { emitEvent } from './emit-event.js'

describeEachDatabase('emitEvent, enqueueJob, upsertCustomer', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
  })
  const base = () => ({ merchantId: h.a.id, environment: 'test' as const })

  test('default: an event is written with its payload, one delivery per subscribed endpoint and its attempt job', async () => {
    const first = await createWebhookEndpoint(h.deps, {
      merchantId: h.a.id,
      environment: 'test',
      url: 'https://hooks.example.com/a',
    })
    const second = await createWebhookEndpoint(h.deps, {
      merchantId: h.a.id,
      environment: 'test',
      url: 'https://hooks.example.com/b',
    })
    const id = await emitEvent(h.deps.db, h.deps, {
      ...base(),
      type: 'payment.completed',
      format: 'current',
      data: { session: { reference: 'ref_1' } },
    })
    const row = await h.deps.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', String(id))
      .executeTakeFirst()
    expect(row).toMatchObject({
      type: 'payment.completed',
      payload: { event: 'payment.completed', data: { session: { reference: 'ref_1' } } },
    })
    const deliveries = await h.deps.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'status', 'max_attempts'])
      .where('event_id', '=', String(id))
      .orderBy('created_at')
      .execute()
    expect(deliveries.map((d) => [d.endpoint_id, d.status, d.max_attempts]).sort()).toEqual(
      [
        [first.id, 'pending', 8],
        [second.id, 'pending', 8],
      ].sort(),
    )
    const jobs = await h.deps.db
      .selectFrom('jobs')
      .select(['kind', 'key', 'payload', 'status'])
      .where(
        'key',
        'in',
        deliveries.map((d) => d.id),
      )
      .execute()
    expect(jobs.map((j) => [j.kind, j.key, j.payload, j.status]).sort()).toEqual(
      deliveries.map((d) => ['webhooks.deliver', d.id, { deliveryId: d.id }, 'queued']).sort(),
    )
  })

  test('behavior: legacy format renames session events and drops payment.underpaid', async () => {
    const legacy = { ...base(), format: 'legacy' as const, data: {} }
    const partial = await emitEvent(h.deps.db, h.deps, { ...legacy, type: 'payment.partial' })
    const underpaid = await emitEvent(h.deps.db, h.deps, { ...legacy, type: 'payment.underpaid' })
    expect(underpaid).toBeNull()
    const row = await h.deps.db
      .selectFrom('events')
      .select('type')
      .where('id', '=', String(partial))
      .executeTakeFirstOrThrow()
    expect(row.type).toBe('session.partial')
  })

  test('behavior: a state change that rolls back emits nothing', async () => {
    const count = async () =>
      Number(
        (
          await h.deps.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    await expect(
      inTransaction(h.deps.db, async (trx) => {
        await emitEvent(trx, h.deps, { ...base(), type: 'swap.completed', format: 'current', data: {} })
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(await count()).toBe(before)
  })

  test('behavior: a second unfinished job with the same kind and key is not queued', async () => {
    const first = await enqueueJob(h.deps.db, h.deps, { kind: 'test.dedupe', key: 'k1' })
    const second = await enqueueJob(h.deps.db, h.deps, { kind: 'test.dedupe', key: 'k1' })
    const other = await enqueueJob(h.deps.db, h.deps, { kind: 'test.dedupe', key: 'k2' })
    expect(first).toMatch(/^job_/)
    expect(second).toBeNull()
    expect(other).toMatch(/^job_/)
  })

  test('behavior: customers are matched by e-mail case-insensitively per merchant, filling missing fields', async () => {
    const first = await upsertCustomer(h.deps.db, h.deps, {
      ...base(),
      details: { email: 'Ada@Example.com', firstName: 'Ada' },
    })
    const again = await upsertCustomer(h.deps.db, h.deps, {
      ...base(),
      details: { email: 'ada@example.com', firstName: 'Other', lastName: 'Lovelace' },
    })
    const otherMerchant = await upsertCustomer(h.deps.db, h.deps, {
      merchantId: h.b.id,
      environment: 'test',
      details: { email: 'ada@example.com' },
    })
    expect(again.id).toBe(first.id)
    expect([again.first_name, again.last_name]).toEqual(['Ada', 'Lovelace'])
    expect(otherMerchant.id).not.toBe(first.id)
  })
})
