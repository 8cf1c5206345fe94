import { afterAll, beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../db/in-transaction.js'
import { emitEvent } from '../events/emit-event.js'
import { createOutboundHttp, type OutboundHttp } from '../http/create-outbound-http.js'
import { createJobRunner } from '../jobs/create-job-runner.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js'
import { registerWebhookJobs } from './register-webhook-jobs.js'
import { createWebhookEndpoint } from './webhook-endpoints.js'

// Pins the SQL statements of one webhook delivery (docs/webhooks.md "Throughput"), so a change that
// adds round trips to the hot path shows up here rather than only in the benchmark.
const statements: string[] = []

describeEachDatabase(
  'webhook delivery statement count',
  (getDb) => {
    let h: Harness
    let receiver: WebhookReceiver
    let http: OutboundHttp
    beforeAll(async () => {
      h = await createHarness(getDb())
      receiver = await startWebhookReceiver()
      http = createOutboundHttp()
    })
    afterAll(async () => {
      await http.close()
      await receiver.close()
    })

    test('behavior: emitting an event costs 4 statements in the caller transaction, delivering it 3 plus the claims', async () => {
      await createWebhookEndpoint(h.deps, {
        merchantId: h.a.id,
        environment: 'test',
        url: `${receiver.url}/hook`,
      })
      const deps = { ...h.deps, http }
      const runner = createJobRunner(deps)
      registerWebhookJobs(runner, deps)

      statements.length = 0
      await inTransaction(h.deps.db, (trx) =>
        emitEvent(trx, h.deps, {
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
          await emitEvent(trx, h.deps, {
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
  { onQuery: (sql) => statements.push(sql) },
)
