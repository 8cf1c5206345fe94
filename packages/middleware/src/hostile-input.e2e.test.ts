import {
  encodeBase64Json,
  getSchemeName,
  type PaymentRequired,
  SOLANA_DEVNET,
  toV1NetworkName,
} from '@tollgate/core'
import {
  deepNesting,
  MALFORMED_BODIES,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from '@tollgate/core/testing'
import {
  createPostgresSettlementStore,
  openSettlementDatabase,
  SETTLEMENT_TABLE,
  type SettlementDatabase,
} from '@tollgate/facilitator'
import {
  createHostileInputFacilitator,
  eip3009Payload,
  HOSTILE_INPUT_MERCHANT,
  HOSTILE_INPUT_SOLANA_PAYEE,
  hostileInputAssets,
  permit2Payload,
  solanaPayload,
} from '@tollgate/facilitator/testing'
import { Hono } from 'hono'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentRequired } from './payment-required.js'

// The middleware's side of docs/input-limits.md: whatever a caller puts in PAYMENT-SIGNATURE or
// X-PAYMENT (hostile JSON, not JSON, not base64) and in the body, the paid route answers its 402
// (or 412) with the offer, never a 5xx, and nothing reaches the settlement store.

const schemePayloads = { eip3009: eip3009Payload, permit2: permit2Payload, solana: solanaPayload }

describe('paymentRequired under hostile payment headers', () => {
  let db: Kysely<SettlementDatabase>
  let app: Hono
  let offer: PaymentRequired

  beforeAll(async () => {
    db = await openSettlementDatabase()
    const facilitator = await createHostileInputFacilitator({
      store: await createPostgresSettlementStore({ db }),
    })
    app = new Hono()
    app.use(
      '/paid',
      paymentRequired({
        facilitator,
        assets: hostileInputAssets,
        payTo: { evm: HOSTILE_INPUT_MERCHANT, svm: HOSTILE_INPUT_SOLANA_PAYEE },
        routes: {
          price: '$0.01',
          accepts: [
            { scheme: 'eip3009', network: 'eip155:84532', asset: 'USDC' },
            { scheme: 'permit2', network: 'eip155:84532', asset: 'USDT' },
            { scheme: 'solana', network: SOLANA_DEVNET, asset: 'USDC' },
          ],
        },
      }),
    )
    app.all('/paid', (c) => c.json({ delivered: true }))
    const unpaid = await app.request('/paid')
    expect(unpaid.status).toBe(402)
    offer = JSON.parse(Buffer.from(unpaid.headers.get('PAYMENT-REQUIRED') ?? '', 'base64').toString('utf8'))
    expect(offer.accepts).toHaveLength(3)
  })
  afterAll(async () => {
    await db?.destroy()
  })

  const failures: string[] = []
  const send = async (label: string, header: string, value: string, method = 'GET', body?: string) => {
    const response = await app.request('/paid', {
      method,
      headers: { [header]: value, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    })
    const status = response.status
    if (status !== 402 && status !== 412) {
      failures.push(`${status} ${label.slice(0, 160)}`)
    } else if (!response.headers.get('PAYMENT-REQUIRED')) {
      failures.push(`${status} without an offer: ${label.slice(0, 160)}`)
    }
    await response.body?.cancel()
  }

  test('behavior: headers that are not base64 JSON get the 402 offer', async () => {
    const from = failures.length
    const texts = [
      ...MALFORMED_BODIES.map((text) => Buffer.from(text).toString('base64')),
      'not base64',
      '====',
    ]
    for (const [index, text] of texts.entries()) {
      await send(`malformed #${index}`, 'PAYMENT-SIGNATURE', text)
      await send(`malformed v1 #${index}`, 'X-PAYMENT', text, 'POST', MALFORMED_BODIES[index % 10])
    }
    expect(failures.slice(from)).toEqual([])
  })

  test('behavior: v1 and v2 payment headers with hostile fields get the 402 offer; nothing is stored', async () => {
    const from = failures.length
    let sent = 0
    for (const accepted of offer.accepts) {
      const payload = schemePayloads[getSchemeName(accepted) ?? 'eip3009']
      const v2 = { x402Version: 2, resource: offer.resource, accepted, payload }
      const v1 = { x402Version: 1, scheme: 'exact', network: toV1NetworkName(accepted.network), payload }
      for (const [version, base, header] of [
        ['v2', v2, 'PAYMENT-SIGNATURE'],
        ['v1', v1, 'X-PAYMENT'],
      ] as const) {
        const bodies = [
          ...sweepHostileBodies(base, ['12abc', '-0x1', 'a\u0000b', 'lone \udc00', deepNesting(3_000), null]),
          ...sampleHostileBodies(base, { count: 30, seed: 19 }),
        ]
        for (const [index, body] of bodies.entries()) {
          const text = toHostileJsonText(body)
          const value = Buffer.from(text).toString('base64')
          await send(`${accepted.network} ${version} #${index} ${text.slice(0, 120)}`, header, value)
          sent += 1
        }
      }
    }
    expect(failures.slice(from), `${failures.length - from} of ${sent} answered otherwise`).toEqual([])
    const row = await db
      .selectFrom(SETTLEMENT_TABLE)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(row.n)).toBe(0)
  })

  test('behavior: a well-formed but unpayable header is still a plain 402', async () => {
    const [accepted] = offer.accepts
    const header = encodeBase64Json({
      x402Version: 2,
      resource: offer.resource,
      accepted,
      payload: eip3009Payload,
    })
    const response = await app.request('/paid', { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(response.status).toBe(402)
  })
})
