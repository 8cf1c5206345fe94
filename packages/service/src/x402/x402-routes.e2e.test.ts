import type { PaymentRequirements } from '@tollgate/core'
import { usdcLikeAbi } from '@tollgate/devnet'
import { createEip3009Client } from '@tollgate/evm'
import { createPublicClient, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

// The merchant API's x402 routes on a real Base Sepolia devnet with our facilitator in process.
let fixture: BaseDevnetFacilitator
let devnet: BaseDevnetFacilitator['devnet']
let facilitator: BaseDevnetFacilitator['facilitator']
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
  ;({ devnet, facilitator } = fixture)
})
afterAll(async () => {
  await fixture?.stop()
})

type Envelope<T> = { success: boolean; data: T; error?: { code: string } }
type Requirements = { x402Version: number; accepts: (PaymentRequirements & { maxAmountRequired?: string })[] }

describeEachDatabase('x402 routes', (getDb) => {
  let h: Harness
  let payerKey: Hex
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator,
      rails: (base) => createRails(base, { networks: devnet.networks }),
    })
    const payer = devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
    payerKey = payer?.privateKey as Hex
  })

  const post = async <T>(path: string, json: unknown, key?: string) => {
    const res = await h.request(`/api/v1${path}`, { method: 'POST', json, ...(key ? { key } : {}) })
    return { status: res.status, body: (await res.json()) as Envelope<T> }
  }
  const requirementsFor = async (amount: string, key?: string) => {
    const { status, body } = await post<Requirements>(
      '/x402/requirements',
      { chain: 'base', asset: 'USDC', amount, x402Version: 2 },
      key,
    )
    expect(status).toBe(201)
    return body.data.accepts[0] as PaymentRequirements
  }
  const sign = async (requirements: PaymentRequirements) => {
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
  const usdcBalance = async (address: string) => {
    const network = devnet.networks['eip155:84532']
    const client = createPublicClient({ transport: http(network?.rpcUrl) })
    return client.readContract({
      address: network?.assets.USDC?.address as Hex,
      abi: usdcLikeAbi,
      functionName: 'balanceOf',
      args: [address as Hex],
    })
  }

  test('default: requirements resolve chain and asset, convert the amount and pay the merchant (v1 fields)', async () => {
    const { status, body } = await post<Requirements & { amount: string }>('/x402/requirements', {
      chain: 'base',
      asset: 'USDC',
      amount: '0.01',
      resource: 'https://shop.example/report',
      description: 'A report',
    })
    expect(status).toBe(201)
    expect(body.data).toMatchObject({ x402Version: 1, chain: 'base', asset: 'USDC', amount: '0.010000' })
    expect(
      body.data.accepts.map((a) => [
        a.network,
        a.maxAmountRequired,
        a.resource,
        a.extra?.assetTransferMethod,
      ]),
    ).toEqual([
      ['eip155:84532', '10000', 'https://shop.example/report', undefined],
      ['eip155:84532', '10000', 'https://shop.example/report', 'permit2'],
    ])
    expect(body.data.accepts[0]?.extra).toMatchObject({
      name: expect.any(String),
      version: expect.any(String),
    })
    const again = await requirementsFor('0.01')
    expect(again.payTo).toBe(body.data.accepts[0]?.payTo)
  })

  test('behavior: unsupported chain or asset, too many decimals and over-long fields are 400', async () => {
    const cases: [unknown, string][] = [
      [{ chain: 'tron', asset: 'USDT', amount: '1' }, 'unsupported_asset_chain'],
      [{ chain: 'base', asset: 'DOGE', amount: '1' }, 'unsupported_asset_chain'],
      [{ chain: 'base', asset: 'USDC', amount: '0.0000001' }, 'validation_error'],
      [{ chain: 'base', asset: 'USDC', amount: '0' }, 'validation_error'],
      [{ chain: 'base', asset: 'USDC', amount: '1', resource: 'x'.repeat(501) }, 'validation_error'],
      [{ chain: 'base', asset: 'USDC', amount: '1', payTo: 'not-an-address' }, 'validation_error'],
    ]
    for (const [json, code] of cases) {
      const { status, body } = await post('/x402/requirements', json)
      expect([status, body.error?.code], JSON.stringify(json)).toEqual([400, code])
    }
  })

  test('default: verify passes every check; settle pays on chain and credits the balance net of the fee', async () => {
    const requirements = await requirementsFor('0.01')
    const request = await sign(requirements)
    const verified = await post<{ isValid: boolean; checks: unknown; amount: string }>(
      '/x402/verify',
      request,
    )
    expect(verified.status).toBe(201)
    expect(verified.body.data).toMatchObject({
      isValid: true,
      invalidReason: null,
      chain: 'base',
      asset: 'USDC',
      amount: '0.010000',
      checks: { timestamp: 'pass', nonce: 'pass', balance: 'pass' },
    })
    const before = await usdcBalance(requirements.payTo)
    const settled = await post<{ txHash: string; status: string; amount: string; fee: string }>(
      '/x402/settle',
      request,
    )
    expect(settled.status).toBe(201)
    expect(settled.body.data).toMatchObject({
      status: 'confirmed',
      amount: '0.010000',
      fee: '0.000050',
      payTo: requirements.payTo,
    })
    expect(await usdcBalance(requirements.payTo)).toBe(before + 10_000n)
    const balance = await h.request('/api/v1/balance')
    const balances = ((await balance.json()) as Envelope<{ currency: string; available: string }[]>).data
    expect(balances.find((b) => b.currency === 'USDC')?.available).toBe('0.009950')
    const listed = await h.request(`/api/v1/x402/transactions?search=${settled.body.data.txHash}`)
    expect(((await listed.json()) as Envelope<unknown[]>).data).toHaveLength(1)
    const one = await h.request(`/api/v1/x402/transactions/${settled.body.data.txHash}`)
    expect(one.status).toBe(200)
    const other = await h.request(`/api/v1/x402/transactions/${settled.body.data.txHash}`, {
      key: h.b.testKey,
    })
    expect(other.status).toBe(404)
  })

  test('behavior: 20 concurrent settles of one payload send one transaction, answer one success and credit once', async () => {
    const requirements = await requirementsFor('0.02', h.b.testKey)
    const request = await sign(requirements)
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post<{ txHash: string }>('/x402/settle', request, h.b.testKey)),
    )
    // One payment, one delivery: one call is answered the transaction, the 19 others are refused.
    expect(results.filter((r) => r.status === 201)).toHaveLength(1)
    const refused = results.filter((r) => r.status !== 201)
    expect(refused.map((r) => [r.status, r.body.error?.code])).toEqual(
      Array(19).fill([400, 'settlement_failed']),
    )
    expect(refused.every((r) => JSON.stringify(r.body.error).includes('duplicate_settlement'))).toBe(true)
    const balance = await h.request('/api/v1/balance', { key: h.b.testKey })
    const balances = ((await balance.json()) as Envelope<{ currency: string; available: string }[]>).data
    expect(balances.find((b) => b.currency === 'USDC')?.available).toBe('0.019900')
    const rows = await h.deps.db
      .selectFrom('x402_transactions')
      .select('id')
      .where('merchant_id', '=', h.b.id)
      .execute()
    expect(rows).toHaveLength(1)
  })

  test("behavior: a payment to an address that is not the merchant's is refused, nothing written", async () => {
    const aRequirements = await requirementsFor('0.01')
    const request = await sign(aRequirements)
    const verified = await post<{ isValid: boolean; invalidReason: string }>(
      '/x402/verify',
      request,
      h.b.testKey,
    )
    expect(verified.body.data).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_pay_to_not_merchant_address',
    })
    const settled = await post('/x402/settle', request, h.b.testKey)
    expect([settled.status, settled.body.error?.code]).toEqual([400, 'pay_to_not_allowed'])
    const rows = await h.deps.db
      .selectFrom('x402_transactions')
      .select('id')
      .where('pay_to', '=', aRequirements.payTo)
      .execute()
    expect(rows).toHaveLength(1)
  })

  test('behavior: an expired authorization fails the timestamp check', async () => {
    const requirements = await requirementsFor('0.01')
    const request = await sign(requirements)
    const authorization = (request.paymentPayload.payload as { authorization: { validBefore: string } })
      .authorization
    authorization.validBefore = '1'
    const verified = await post<{ isValid: boolean; checks: Record<string, string> }>('/x402/verify', request)
    expect(verified.body.data.isValid).toBe(false)
    expect(verified.body.data.checks.timestamp).toBe('fail')
  })

  test('default: supported lists the facilitator kinds on the chains of the registry', async () => {
    const res = await h.request('/api/v1/x402/supported')
    const kinds = (
      (await res.json()) as Envelope<{ kinds: { network: string; chain: string; assets: string[] }[] }>
    ).data.kinds
    expect(kinds).toContainEqual(
      expect.objectContaining({
        network: 'eip155:84532',
        chain: 'base',
        assets: expect.arrayContaining(['USDC']),
      }),
    )
  })
})
