import { Webhook } from 'standardwebhooks'
import { describe, expect, test } from 'vitest'
import { createWebhookSecret, signWebhook } from './sign-webhook.js'

describe('signWebhook', () => {
  const body = JSON.stringify({ event: 'payment.completed', data: { session: { reference: 'r1' } } })

  test('default: the standardwebhooks verifier accepts what we sign, and returns the body', () => {
    const secret = createWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const headers = signWebhook({ id: 'evt_1', timestamp: new Date(), body, secrets: [secret] })
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  test('behavior: during a rotation both the old and the new secret verify', () => {
    const [next, previous] = [createWebhookSecret(), createWebhookSecret()]
    const headers = signWebhook({ id: 'evt_2', timestamp: new Date(), body, secrets: [next, previous] })
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(new Webhook(next).verify(body, headers)).toBeTruthy()
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy()
  })

  test('behavior: another secret, another id, a changed body or an old timestamp are rejected', () => {
    const secret = createWebhookSecret()
    const headers = signWebhook({ id: 'evt_3', timestamp: new Date(), body, secrets: [secret] })
    expect(() => new Webhook(createWebhookSecret()).verify(body, headers)).toThrow()
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_4' })).toThrow()
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow()
    const old = signWebhook({
      id: 'evt_3',
      timestamp: new Date(Date.now() - 3_600_000),
      body,
      secrets: [secret],
    })
    expect(() => new Webhook(secret).verify(body, old)).toThrow()
  })
})
