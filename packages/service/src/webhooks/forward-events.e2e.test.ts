import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { emitEvent } from '../events/emit-event.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js'
import { forwardEvents } from './forward-events.js'

describeEachDatabase('forwardEvents (tollgate listen)', (getDb) => {
  let h: Harness
  let receiver: WebhookReceiver
  beforeAll(async () => {
    h = await createHarness(getDb())
    receiver = await startWebhookReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  test('default: forwards signed events to the local URL, prints one line per attempt, deletes its endpoint on stop', async () => {
    const out: string[] = []
    const err: string[] = []
    const controller = new AbortController()
    let calls = 0
    receiver.respond = () => {
      calls += 1
      return calls === 1 ? { status: 500, body: 'boom' } : { status: 200 }
    }
    const listening = forwardEvents({
      apiUrl: 'http://sandbox.test/api/v1',
      apiKey: h.a.testKey,
      forwardTo: `${receiver.url}/webhooks`,
      signal: controller.signal,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      fetch: async (url, init) => h.app.request(url, init),
      pollMs: 20,
    })
    await vi.waitFor(() => expect(out.join('\n')).toContain('Webhook signing secret: whsec_'))
    const secret = /whsec_\S+/.exec(out.join('\n'))?.[0] ?? ''
    const endpointId = /temporary endpoint (whe_\w+)/.exec(out.join('\n'))?.[1] ?? ''
    const eventId = String(
      await emitEvent(h.deps.db, h.deps, {
        merchantId: h.a.id,
        environment: 'test',
        type: 'payment.completed',
        format: 'current',
        data: { session: { reference: 'ref_listen' } },
      }),
    )
    await h.runner.runDue()
    await vi.waitFor(() => expect(out.filter((line) => line.includes(eventId))).toHaveLength(1))
    // The retry is due after the sandbox's first delay; move it to now the way a resend would.
    await h.deps.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).execute()
    await h.deps.db.updateTable('jobs').set({ run_at: new Date() }).execute()
    await h.runner.runDue()
    await vi.waitFor(() => expect(out.filter((line) => line.includes(eventId))).toHaveLength(2))
    const lines = out.filter((line) => line.includes(eventId))
    expect(lines[0]).toMatch(
      /payment\.completed\s+evt_\w+ {2}\[500\] \d+ ms {2}http_status: HTTP 500 {2}\(retry at /,
    )
    expect(lines[1]).toMatch(/payment\.completed\s+evt_\w+ {2}\[200\] \d+ ms$/)
    const [request] = receiver.received
    expect(request?.path).toBe('/webhooks')
    expect(new Webhook(secret).verify(request?.body ?? '', request?.headers ?? {})).toMatchObject({
      event: 'payment.completed',
    })
    controller.abort()
    await listening
    expect(err).toEqual([])
    const gone = await h.request(`/api/v1/webhooks/endpoints/${endpointId}`)
    expect(gone.status).toBe(404)
  })

  test('behavior: a URL the sandbox refuses stops listen with the API error', async () => {
    await expect(
      forwardEvents({
        apiUrl: 'http://sandbox.test/api/v1',
        apiKey: h.a.testKey,
        forwardTo: 'http://example.com/webhooks',
        signal: new AbortController().signal,
        out: () => {},
        err: () => {},
        fetch: async (url, init) => h.app.request(url, init),
      }),
    ).rejects.toThrow(/validation_error.*https_required/)
  })
})
