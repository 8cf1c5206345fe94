import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { emitEvent } from '../events/emit-event.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js'

type Body<T = Record<string, unknown>> = {
  success: boolean
  data: T
  error?: { code: string; details?: { field: string; code: string }[] }
}

describeEachDatabase('webhook and event routes', (getDb) => {
  let h: Harness
  let receiver: WebhookReceiver
  const http = createOutboundHttp()
  beforeAll(async () => {
    h = await createHarness(getDb(), { webhookHttp: http })
    receiver = await startWebhookReceiver()
  })
  afterAll(async () => {
    await http.close()
    await receiver.close()
  })
  beforeEach(() => {
    receiver.received.length = 0
    receiver.respond = () => ({ status: 200, body: 'ok' })
  })
  const call = async <T = Record<string, unknown>>(
    path: string,
    init: Parameters<Harness['request']>[1] = {},
  ): Promise<{ status: number; body: Body<T> }> => {
    const res = await h.request(`/api/v1${path}`, init)
    return { status: res.status, body: (await res.json()) as Body<T> }
  }
  const createEndpoint = (json: Record<string, unknown>, key?: string) =>
    call<{ id: string; secret?: string }>('/webhooks/endpoints', {
      method: 'POST',
      json,
      ...(key ? { key } : {}),
    })

  test('default: create shows the secret once; get, list, patch and delete manage the endpoint', async () => {
    const created = await createEndpoint({
      url: `${receiver.url}/a`,
      description: 'orders',
      enabledEvents: ['payment.completed', 'session.expired'],
    })
    expect(created.status).toBe(200)
    expect(created.body.data).toMatchObject({
      url: `${receiver.url}/a`,
      description: 'orders',
      enabledEvents: ['payment.completed', 'payment.expired'],
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: null,
    })
    const id = created.body.data.id
    const got = await call(`/webhooks/endpoints/${id}`)
    expect(got.body.data).not.toHaveProperty('secret')
    const list = await call<{ id: string }[]>('/webhooks/endpoints?size=100')
    expect(list.body.data.map((e) => e.id)).toContain(id)
    const patched = await call(`/webhooks/endpoints/${id}`, {
      method: 'PATCH',
      json: { status: 'disabled', enabledEvents: ['*'] },
    })
    expect(patched.body.data).toMatchObject({
      status: 'disabled',
      enabledEvents: ['*'],
      description: 'orders',
    })
    expect((await call(`/webhooks/endpoints/${id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await call(`/webhooks/endpoints/${id}`)).status).toBe(404)
    expect(
      (await call<{ id: string }[]>('/webhooks/endpoints?size=100')).body.data.map((e) => e.id),
    ).not.toContain(id)
  })

  test('behavior: URLs must be https and public; plain http to localhost only for sandbox keys', async () => {
    const cases: [string, string | undefined, number, string | undefined][] = [
      ['http://example.com/hook', undefined, 400, 'https_required'],
      ['ftp://example.com/hook', undefined, 400, 'https_required'],
      ['not a url', undefined, 400, 'invalid_url'],
      ['https://user:pw@example.com/', undefined, 400, 'invalid_url'],
      ['https://10.0.0.1/hook', undefined, 400, 'address_not_allowed'],
      ['https://169.254.169.254/latest', undefined, 400, 'address_not_allowed'],
      ['https://[fd00::1]/hook', undefined, 400, 'address_not_allowed'],
      ['http://localhost:3000/hook', h.a.liveKey, 400, 'https_required'],
      ['https://127.0.0.1/hook', h.a.liveKey, 400, 'address_not_allowed'],
      ['http://localhost:3000/hook', undefined, 200, undefined],
      ['https://example.com/hook', h.a.liveKey, 200, undefined],
    ]
    for (const [url, key, status, code] of cases) {
      const res = await createEndpoint({ url }, key)
      expect(res.status, url).toBe(status)
      if (code) {
        expect(res.body.error?.details, url).toEqual([expect.objectContaining({ field: 'body.url', code })])
      }
    }
    const patch = await createEndpoint({ url: 'https://example.com/ok' })
    const bad = await call(`/webhooks/endpoints/${patch.body.data.id}`, {
      method: 'PATCH',
      json: { url: 'http://example.com/' },
    })
    expect(bad.status).toBe(400)
    expect((await call<{ url: string }>(`/webhooks/endpoints/${patch.body.data.id}`)).body.data.url).toBe(
      'https://example.com/ok',
    )
  })

  test("isolation: another merchant's key and the other environment's key see 404 for every endpoint and event route", async () => {
    const { body } = await createEndpoint({ url: `${receiver.url}/iso` })
    const id = body.data.id
    const eventId = String(
      await emitEvent(h.deps.db, h.deps, {
        merchantId: h.a.id,
        environment: 'test',
        type: 'payment.completed',
        format: 'current',
        data: {},
      }),
    )
    for (const key of [h.b.testKey, h.a.liveKey]) {
      for (const [method, path] of [
        ['GET', `/webhooks/endpoints/${id}`],
        ['PATCH', `/webhooks/endpoints/${id}`],
        ['DELETE', `/webhooks/endpoints/${id}`],
        ['POST', `/webhooks/endpoints/${id}/rotate-secret`],
        ['POST', `/webhooks/endpoints/${id}/test`],
        ['GET', `/events/${eventId}`],
        ['GET', `/events/${eventId}/deliveries`],
        ['POST', `/events/${eventId}/resend`],
      ] as const) {
        const res = await call(path, {
          method,
          key,
          ...(method === 'PATCH' ? { json: { description: 'x' } } : {}),
        })
        expect(res.status, `${method} ${path}`).toBe(404)
      }
      const list = await call<{ id: string }[]>('/events?size=100', { key })
      expect(list.body.data.map((e) => e.id)).not.toContain(eventId)
    }
    expect(receiver.received).toEqual([])
  })

  test('default: the test route sends a signed webhook.test at once and returns the attempt', async () => {
    const { body } = await createEndpoint({ url: `${receiver.url}/test` })
    receiver.respond = () => ({ status: 202, body: 'thanks' })
    const res = await call<{
      eventId: string
      status: string
      attempts: { statusCode: number; responseBody: string }[]
    }>(`/webhooks/endpoints/${body.data.id}/test`, { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      status: 'succeeded',
      attempts: [{ statusCode: 202, responseBody: 'thanks' }],
    })
    const [request] = receiver.received
    const verified = new Webhook(String(body.data.secret)).verify(request?.body ?? '', request?.headers ?? {})
    expect(verified).toMatchObject({ event: 'webhook.test', data: { endpoint: { id: body.data.id } } })
    expect(request?.headers['webhook-id']).toBe(res.body.data.eventId)
    const event = await call<{ type: string }>(`/events/${res.body.data.eventId}`)
    expect(event.body.data.type).toBe('webhook.test')
  })

  test('behavior: after rotate-secret both the new and the previous secret verify deliveries', async () => {
    const { body } = await createEndpoint({ url: `${receiver.url}/rotate` })
    const rotated = await call<{ secret: string; previousSecretExpiresAt: string }>(
      `/webhooks/endpoints/${body.data.id}/rotate-secret`,
      { method: 'POST' },
    )
    expect(rotated.body.data.secret).not.toBe(body.data.secret)
    expect(Date.parse(rotated.body.data.previousSecretExpiresAt)).toBeGreaterThan(Date.now())
    await call(`/webhooks/endpoints/${body.data.id}/test`, { method: 'POST' })
    const [request] = receiver.received
    for (const secret of [rotated.body.data.secret, String(body.data.secret)]) {
      expect(new Webhook(secret).verify(request?.body ?? '', request?.headers ?? {})).toBeTruthy()
    }
  })

  test('default: events are listed and filtered; deliveries show every attempt; resend makes one more', async () => {
    await h.deps.db.updateTable('webhook_endpoints').set({ deleted_at: new Date() }).execute()
    const { body } = await createEndpoint({ url: `${receiver.url}/events`, enabledEvents: ['payout.failed'] })
    receiver.respond = () => ({ status: 500, body: 'nope' })
    const eventId = String(
      await emitEvent(h.deps.db, h.deps, {
        merchantId: h.a.id,
        environment: 'test',
        type: 'payout.failed',
        format: 'current',
        data: { payout: { id: 'po_1' } },
      }),
    )
    await h.runner.runDue()
    const list = await call<{ id: string; type: string; payload: unknown }[]>(
      '/events?type=payout.failed&size=100',
    )
    expect(list.body.data[0]).toEqual({
      id: eventId,
      type: 'payout.failed',
      payload: { event: 'payout.failed', data: { payout: { id: 'po_1' } } },
      webhookUrl: null,
      createdAt: expect.any(String),
    })
    const deliveries = await call<
      { endpointId: string; status: string; attempts: { statusCode: number }[] }[]
    >(`/events/${eventId}/deliveries`)
    expect(deliveries.body.data).toMatchObject([
      {
        endpointId: body.data.id,
        status: 'pending',
        attemptCount: 1,
        attempts: [{ statusCode: 500, responseBody: 'nope' }],
      },
    ])
    receiver.respond = () => ({ status: 200 })
    const resent = await call<{ status: string }[]>(`/events/${eventId}/resend`, { method: 'POST', json: {} })
    expect(resent.status).toBe(200)
    expect(resent.body.data.map((d) => d.status)).toEqual(['pending'])
    await h.runner.runDue()
    const after = await call<{ status: string; attempts: { statusCode: number }[] }[]>(
      `/events/${eventId}/deliveries`,
    )
    expect(after.body.data[0]?.status).toBe('succeeded')
    expect(after.body.data[0]?.attempts.map((a) => a.statusCode)).toEqual([500, 200])
    // An ended delivery gets exactly one more attempt.
    await call(`/events/${eventId}/resend`, { method: 'POST' })
    await h.runner.runDue()
    const again = await call<{ attempts: unknown[]; maxAttempts: number }[]>(`/events/${eventId}/deliveries`)
    expect(again.body.data[0]?.attempts).toHaveLength(3)
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId])
    const unknownEndpoint = await call(`/events/${eventId}/resend`, {
      method: 'POST',
      json: { endpointId: 'whe_nope' },
    })
    expect(unknownEndpoint.status).toBe(404)
  })

  test('default: the account secret signs deliveries to an object webhookUrl and rotates', async () => {
    const rotated = await call<{ secret: string }>('/webhooks/account-secret/rotate', { method: 'POST' })
    expect(rotated.body.data.secret).toMatch(/^whsec_/)
    await emitEvent(h.deps.db, h.deps, {
      merchantId: h.a.id,
      environment: 'test',
      type: 'swap.completed',
      format: 'current',
      data: { swap: {} },
      webhookUrl: `${receiver.url}/own`,
    })
    await h.runner.runDue()
    const [request] = receiver.received.filter((r) => r.path === '/own')
    expect(
      new Webhook(rotated.body.data.secret).verify(request?.body ?? '', request?.headers ?? {}),
    ).toMatchObject({
      event: 'swap.completed',
    })
  })
})
