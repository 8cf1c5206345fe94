import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest'
import { inTransaction } from '../db/in-transaction.js'
import { emitEvent } from '../events/emit-event.js'
import { createOutboundHttp, type OutboundHttp } from '../http/create-outbound-http.js'
import { createJobRunner, type JobRunner } from '../jobs/create-job-runner.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createManualClock, type ManualClock } from '../testing/manual-clock.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js'
import { getAccountSecret } from './account-secret.js'
import type { WebhookDeps } from './deliver-webhook.js'
import { registerWebhookJobs } from './register-webhook-jobs.js'
import { createWebhookEndpoint, updateWebhookEndpoint } from './webhook-endpoints.js'

// Every statement the suite's database runs, for the statement-count test.
const statements: string[] = []

describeEachDatabase(
  'webhook deliveries',
  (getDb, _engine, getOpened) => {
    let h: Harness
    let receiver: WebhookReceiver
    let http: OutboundHttp
    let clock: ManualClock
    let deps: WebhookDeps
    let runner: JobRunner
    beforeAll(async () => {
      h = await createHarness(getDb())
      receiver = await startWebhookReceiver()
      http = createOutboundHttp()
    })
    afterAll(async () => {
      await http.close()
      await receiver.close()
    })
    beforeEach(async () => {
      receiver.received.length = 0
      receiver.respond = () => ({ status: 200, body: 'ok' })
      await h.deps.db.deleteFrom('jobs').execute()
      await h.deps.db.updateTable('webhook_endpoints').set({ deleted_at: new Date() }).execute()
      clock = createManualClock()
      deps = { ...h.deps, clock, http }
      runner = createJobRunner({ ...deps, leaseMs: 30_000 })
      registerWebhookJobs(runner, deps)
    })
    const endpoint = (overrides: { merchantId?: string; enabledEvents?: string[]; path?: string } = {}) =>
      createWebhookEndpoint(deps, {
        merchantId: overrides.merchantId ?? h.a.id,
        environment: 'test',
        url: `${receiver.url}${overrides.path ?? '/hook'}`,
        enabledEvents: overrides.enabledEvents,
      })
    const emit = (input: Partial<Parameters<typeof emitEvent>[2]> = {}) =>
      emitEvent(h.deps.db, deps, {
        merchantId: h.a.id,
        environment: 'test',
        type: 'payment.completed',
        format: 'current',
        data: { session: { reference: 'ref_1', state: 'closed' } },
        ...input,
      })
    const attemptsOf = (eventId: string) =>
      h.deps.db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .select(['a.attempt', 'a.status_code', 'a.succeeded', 'a.error', 'a.response_body', 'd.status'])
        .where('d.event_id', '=', eventId)
        .orderBy('a.attempt')
        .execute()

    test('default: an event reaches the subscribed endpoint, signed so that the standardwebhooks verifier accepts it', async () => {
      const created = await endpoint()
      const eventId = String(await emit())
      await runner.runDue()
      expect(receiver.received).toHaveLength(1)
      const [request] = receiver.received
      expect(request?.headers['webhook-id']).toBe(eventId)
      expect(request?.headers['content-type']).toBe('application/json')
      const verified = new Webhook(created.secret).verify(request?.body ?? '', request?.headers ?? {})
      expect(verified).toEqual({
        event: 'payment.completed',
        data: { session: { reference: 'ref_1', state: 'closed' } },
      })
      expect(await attemptsOf(eventId)).toEqual([
        {
          attempt: 1,
          status_code: 200,
          succeeded: true,
          error: null,
          response_body: 'ok',
          status: 'succeeded',
        },
      ])
    })

    test('behavior: a receiver failing 3 times then answering 200 gets 4 attempts with the same webhook-id', async () => {
      await endpoint()
      let calls = 0
      receiver.respond = () => {
        calls += 1
        return calls <= 3 ? { status: 500, body: `down ${calls}` } : { status: 204 }
      }
      const eventId = String(await emit())
      await runner.runDue()
      for (let retry = 0; retry < 3; retry++) {
        // Before the jittered delay nothing is due; after the longest possible one it is.
        expect(await runner.runDue()).toBe(0)
        clock.advance(Math.ceil(deps.settings.webhookRetryDelaysMs.test[retry] ?? 0) * 1.2 + 1)
        expect(await runner.runDue()).toBe(1)
      }
      expect(await runner.runDue()).toBe(0)
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
        eventId,
        eventId,
        eventId,
        eventId,
      ])
      const attempts = await attemptsOf(eventId)
      expect(attempts.map((a) => [a.attempt, a.status_code, a.succeeded, a.error])).toEqual([
        [1, 500, false, 'http_status: HTTP 500'],
        [2, 500, false, 'http_status: HTTP 500'],
        [3, 500, false, 'http_status: HTTP 500'],
        [4, 204, true, null],
      ])
      expect(attempts[0]?.response_body).toBe('down 1')
      expect(attempts.at(-1)?.status).toBe('succeeded')
      expect(await h.deps.db.selectFrom('jobs').selectAll().execute()).toEqual([])
    })

    test('behavior: a worker that dies after claiming the attempt (commit done, nothing sent) is replaced after its lease', async () => {
      await endpoint()
      const eventId = String(await emit())
      const dead = createJobRunner({ ...deps, leaseMs: 30_000, workerId: 'wrk_dead' })
      registerWebhookJobs(dead, deps)
      expect((await dead.claim(10)).map((j) => j.kind)).toEqual(['webhooks.deliver'])
      expect(await runner.runDue()).toBe(0)
      expect(receiver.received).toHaveLength(0)
      clock.advance(30_001)
      expect(await runner.runDue()).toBe(1)
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId])
      expect((await attemptsOf(eventId)).map((a) => a.succeeded)).toEqual([true])
    })

    test('behavior: the retry schedule ends after max attempts with the delivery failed', async () => {
      await endpoint()
      receiver.respond = () => ({ status: 503, body: 'x'.repeat(10_000) })
      const eventId = String(await emit())
      for (let i = 0; i < 20; i++) {
        await runner.runDue()
        clock.advance(3_600_000)
      }
      const attempts = await attemptsOf(eventId)
      expect(attempts).toHaveLength(deps.settings.webhookRetryDelaysMs.test.length + 1)
      expect(attempts.at(-1)?.status).toBe('failed')
      expect(attempts[0]?.response_body).toHaveLength(4_096)
    })

    test("behavior: an event's own webhookUrl replaces the endpoints and is signed with the account secret", async () => {
      await endpoint({ path: '/endpoint' })
      const eventId = String(await emit({ webhookUrl: `${receiver.url}/own` }))
      await runner.runDue()
      expect(receiver.received.map((r) => r.path)).toEqual(['/own'])
      const { secret } = await getAccountSecret(h.deps.db, deps, { merchantId: h.a.id, environment: 'test' })
      const [request] = receiver.received
      expect(new Webhook(secret).verify(request?.body ?? '', request?.headers ?? {})).toMatchObject({
        event: 'payment.completed',
      })
      expect(request?.headers['webhook-id']).toBe(eventId)
    })

    test('behavior: a legacy key gets session.* names, delivered to endpoints subscribed under either name', async () => {
      await endpoint({ enabledEvents: ['payment.completed'], path: '/current' })
      await endpoint({ enabledEvents: ['session.completed'], path: '/legacy' })
      await endpoint({ enabledEvents: ['payout.success'], path: '/other' })
      await emit({ format: 'legacy' })
      await runner.runDue()
      expect(receiver.received.map((r) => r.path).sort()).toEqual(['/current', '/legacy'])
      expect(receiver.received.map((r) => JSON.parse(r.body).event)).toEqual([
        'session.completed',
        'session.completed',
      ])
    })

    test('behavior: other merchants, other environments, disabled and deleted endpoints get nothing', async () => {
      const own = await endpoint({ path: '/own' })
      await endpoint({ merchantId: h.b.id, path: '/b' })
      await createWebhookEndpoint(deps, {
        merchantId: h.a.id,
        environment: 'live',
        url: 'https://example.com/live',
      })
      const disabled = await endpoint({ path: '/disabled' })
      await updateWebhookEndpoint(deps, {
        merchantId: h.a.id,
        environment: 'test',
        id: disabled.id,
        status: 'disabled',
      })
      await emit()
      await runner.runDue()
      expect(receiver.received.map((r) => r.path)).toEqual(['/own'])
      expect(own.id).toMatch(/^whe_/)
    })

    test('behavior: two workers started side by side deliver every event, never one attempt twice', async () => {
      await endpoint()
      const workers = [0, 1].map(() => {
        const w = createJobRunner({
          ...h.deps,
          notifications: getOpened().notifications,
          concurrency: 8,
          pollMs: 50,
        })
        registerWebhookJobs(w, { ...h.deps, http })
        return w
      })
      await Promise.all(workers.map((w) => w.start()))
      try {
        const total = 100
        const ids = new Set<string>()
        for (let i = 0; i < total; i++) {
          ids.add(
            String(
              await emitEvent(h.deps.db, h.deps, {
                merchantId: h.a.id,
                environment: 'test',
                type: 'payment.completed',
                format: 'current',
                data: { session: { i } },
              }),
            ),
          )
        }
        await vi.waitFor(
          async () => {
            const done = await h.deps.db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('event_id', 'in', [...ids])
              .where('status', '=', 'succeeded')
              .executeTakeFirstOrThrow()
            expect(Number(done.n)).toBe(total)
          },
          { timeout: 45_000, interval: 100 },
        )
        // At least once: a slow answer may time out and be retried (a new attempt, same webhook-id);
        // never twice the same attempt: what the receiver got matches the attempts logged, one each.
        const received = receiver.received.map((r) => String(r.headers['webhook-id']))
        expect(new Set(received)).toEqual(ids)
        const attempts = await h.deps.db
          .selectFrom('webhook_attempts as a')
          .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .select(['d.event_id', 'a.attempt', 'd.status'])
          .where('d.event_id', 'in', [...ids])
          .execute()
        expect(attempts.map((a) => a.event_id).sort()).toEqual([...received].sort())
        expect(attempts.every((a) => a.status === 'succeeded')).toBe(true)
      } finally {
        await Promise.all(workers.map((w) => w.stop()))
      }
    })

    // Pins the SQL of one webhook delivery (docs/webhooks.md "Throughput design"), so a change that
    // adds round trips to the hot path shows up here rather than only in the benchmark.
    test('behavior: emitting an event costs 4 statements in the caller transaction, delivering it 3 plus the claims', async () => {
      await endpoint()

      statements.length = 0
      await inTransaction(h.deps.db, (trx) =>
        emitEvent(trx, deps, {
          merchantId: h.a.id,
          environment: 'test',
          type: 'payment.completed',
          format: 'current',
          data: { session: { reference: 'ref_count' } },
        }),
      )
      expect(summarizeStatements(statements)).toEqual([
        'begin',
        'insert into events',
        'select from webhook_endpoints',
        'insert into webhook_deliveries',
        'inserted: insert into jobs',
        'commit',
      ])

      statements.length = 0
      expect(await runner.runDue()).toBe(1)
      expect(receiver.received).toHaveLength(1)
      expect(summarizeStatements(statements)).toEqual([
        'async_commit: update jobs', // the claim
        'select from webhook_deliveries', // the delivery, its event and endpoint
        'attempt: insert into webhook_attempts', // the attempt logged and the delivery moved
        'async_commit: delete from jobs', // the finished job (batched with others when busy)
        'async_commit: update jobs', // runDue's last claim, which finds nothing
      ])

      // Eight at once: one claim and one select for all; attempt logs and job deletes are batched
      // with whatever finished together (between 1 and 8 statements each, by the receiver's timing).
      statements.length = 0
      await inTransaction(h.deps.db, async (trx) => {
        for (let i = 0; i < 8; i++) {
          await emitEvent(trx, deps, {
            merchantId: h.a.id,
            environment: 'test',
            type: 'payment.completed',
            format: 'current',
            data: { session: { reference: `ref_batch_${i}` } },
          })
        }
      })
      statements.length = 0
      expect(await runner.runDue()).toBe(8)
      expect(receiver.received).toHaveLength(9)
      const batch = summarizeStatements(statements)
      expect(batch.filter((s) => s === 'async_commit: update jobs')).toHaveLength(2)
      expect(batch.filter((s) => s === 'select from webhook_deliveries')).toHaveLength(1)
      expect(batch.length).toBeLessThanOrEqual(2 + 1 + 8 + 8)
    })
  },
  { poolSize: 20, onQuery: (sql) => statements.push(sql) },
)
