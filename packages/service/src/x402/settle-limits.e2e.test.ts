import { DEFAULT_ASSETS, type PaymentRequirements } from '@tollgate/core'
import { createEip3009Client } from '@tollgate/evm'
import { resolveSettleLimits } from '@tollgate/facilitator'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

// The facilitator's dust limits through the merchant API's /x402/settle (issue 36 item 1): the
// in-process facilitator with a 0.001 USDC floor and two settles per merchant a minute.
let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  const network = 'eip155:84532'
  const assets = DEFAULT_ASSETS.filter((asset) => asset.network === network)
  const limits = resolveSettleLimits([{ network, assets }], { perCaller: { settles: 2, windowSeconds: 60 } })
  fixture = await startBaseDevnetFacilitator({ limits })
})
afterAll(async () => {
  await fixture?.stop()
})

type Envelope<T> = { success: boolean; data: T; error?: { code: string; details?: { errorReason?: string } } }

describeEachDatabase('x402 settle limits', (getDb) => {
  let h: Harness
  let payerKey: Hex
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator: fixture.facilitator,
      rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
    })
    const payer = fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
    payerKey = payer?.privateKey as Hex
  })

  const post = async <T>(path: string, json: unknown, key: string) => {
    const res = await h.request(`/api/v1${path}`, { method: 'POST', json, key })
    return { status: res.status, body: (await res.json()) as Envelope<T> }
  }
  const signed = async (amount: string, key: string) => {
    const { body } = await post<{ accepts: PaymentRequirements[] }>(
      '/x402/requirements',
      { chain: 'base', asset: 'USDC', amount, x402Version: 2 },
      key,
    )
    const requirements = body.data.accepts[0] as PaymentRequirements
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey) })
    const payload = await client.createPayload(requirements)
    return {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        resource: { url: 'https://shop.example/api' },
        accepted: requirements,
        payload,
      },
      paymentRequirements: requirements,
    }
  }

  test('dust under the floor is refused at verify and settle; a settle loop is refused after the limit', async () => {
    const key = h.a.testKey
    const dust = await signed('0.000999', key)
    const verified = await post<{ isValid: boolean; invalidReason?: string }>('/x402/verify', dust, key)
    expect(verified.body.data).toMatchObject({
      isValid: false,
      invalidReason: 'tollgate_amount_below_minimum',
    })
    const settledDust = await post('/x402/settle', dust, key)
    expect(settledDust.status).toBe(400)
    expect(settledDust.body.error).toMatchObject({
      code: 'settlement_failed',
      details: { errorReason: 'tollgate_amount_below_minimum' },
    })

    const answers = []
    for (let i = 0; i < 3; i += 1) {
      answers.push(await post('/x402/settle', await signed('0.001', key), key))
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 400])
    expect(answers[2]?.body.error?.details?.errorReason).toBe('tollgate_rate_limited')
    // The window is the merchant's: merchant B still settles.
    const other = await post('/x402/settle', await signed('0.001', h.b.testKey), h.b.testKey)
    expect(other.status).toBe(201)
  })
})
