import { randomBytes } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import { inTransaction } from '../db/in-transaction.js'
import type { IncomingTransfer } from '../rails/types.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails, type FakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { registerSessionHandlers } from './register-session-handlers.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

describeEachDatabase('settlement and transaction routes', (getDb) => {
  let h: Harness
  let rails: FakeSessionRails
  let legacyKey: string
  let paid: Json
  let waiting: Json
  const hashes: string[] = []

  const open = async (json: Json): Promise<Json> => {
    const res = await h.request('/api/v1/payments', { method: 'POST', json })
    return ((await res.json()) as Json).data
  }
  const pay = async (session: Json, amount: bigint, status: 'seen' | 'confirmed') => {
    const txHash = `0x${randomBytes(32).toString('hex')}`
    hashes.push(txHash)
    const t: IncomingTransfer = {
      id: h.deps.ids.create('itr'),
      environment: 'test',
      chain: session.payment.chain,
      network: 'net',
      asset: session.payment.asset,
      amount,
      decimals: 6,
      txHash,
      logIndex: 0,
      fromAddress: 'payer',
      toAddress: session.payment.address,
      blockNumber: 7n,
      confirmations: 0,
      status: 'seen',
      address: {
        id: 'addr',
        merchantId: h.a.id,
        environment: 'test',
        chain: session.payment.chain,
        network: 'net',
        address: session.payment.address,
        purpose: 'session',
        ownerId: session.id,
        createdAt: new Date(),
      },
      seenAt: new Date(),
      confirmedAt: null,
    }
    await inTransaction(h.deps.db, (trx) => rails.deliver(trx, t))
    if (status === 'confirmed') {
      await inTransaction(h.deps.db, (trx) =>
        rails.deliver(trx, { ...t, status: 'confirmed', confirmations: 1, confirmedAt: new Date() }),
      )
    }
  }

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) => {
        rails = createFakeSessionRails(base)
        return rails
      },
    })
    registerSessionHandlers(h.deps)
    legacyKey = (await createApiKey(h.deps, { merchantId: h.a.id, environment: 'test', format: 'legacy' }))
      .key
    const customer = { email: 'c@example.com' }
    paid = await open({
      title: 'T',
      amount: '10.00',
      currency: 'USD',
      asset: 'USDC',
      chain: 'solana',
      customer,
      settlementCurrency: 'USDT',
    })
    waiting = await open({
      title: 'W',
      amount: '5.00',
      currency: 'USD',
      asset: 'USDC',
      chain: 'base',
      customer,
    })
    await pay(paid, 10_000_000n, 'confirmed')
    await pay(waiting, 1_000_000n, 'seen')
  })

  test('default: GET /settlements lists settled sessions with the spec fields, for both key formats', async () => {
    for (const key of [h.a.testKey, legacyKey]) {
      const body = (await (await h.request('/api/v1/settlements', { key })).json()) as Json
      expect(body.meta).toMatchObject({ total: 1, page: 1 })
      expect(body.data).toEqual([
        {
          status: 'completed',
          entity: 'session',
          reference: paid.reference,
          balanceReference: paid.reference,
          requested: { amount: '10.00', currency: 'USD' },
          gross: { currency: 'USDT', amount: '10.000000', conversionRate: '1.00000000' },
          customerPaid: { amount: '10.000000' },
          fees: {
            processing: { amount: '0.100000', paidBy: 'merchant' },
            gas: { amount: expect.stringMatching(/^0\.\d{6}$/), paidBy: 'merchant' },
          },
          net: { amount: expect.stringMatching(/^9\.\d{6}$/) },
        },
      ])
    }
    const one = (await (
      await h.request(`/api/v1/settlements/${paid.reference}?entity=session`)
    ).json()) as Json
    expect(one.data.reference).toBe(paid.reference)
  })

  test('behavior: settlement filters, unsettled and foreign references, bad input and auth', async () => {
    const total = async (query: string) =>
      ((await (await h.request(`/api/v1/settlements${query}`)).json()) as Json).meta.total
    expect(await total('?currency=USDT&entity=session')).toBe(1)
    expect(await total('?currency=USDC')).toBe(0)
    expect(await total('?entity=invoice')).toBe(0)
    expect((await h.request(`/api/v1/settlements/${waiting.reference}`)).status).toBe(404)
    expect((await h.request(`/api/v1/settlements/${paid.reference}?entity=invoice`)).status).toBe(404)
    expect((await h.request(`/api/v1/settlements/${paid.reference}`, { key: h.b.testKey })).status).toBe(404)
    expect(
      ((await (await h.request('/api/v1/settlements', { key: h.b.testKey })).json()) as Json).meta.total,
    ).toBe(0)
    expect((await h.request('/api/v1/settlements?currency=EUR')).status).toBe(400)
    expect((await h.request('/api/v1/settlements', { key: null })).status).toBe(401)
  })

  test('default: GET /transactions and /transactions/{txHash} show confirmations, amlCheck and explorerUrl', async () => {
    const body = (await (await h.request('/api/v1/transactions')).json()) as Json
    expect(body.meta.total).toBe(2)
    expect(body.data.map((t: Json) => t.txHash)).toEqual([hashes[1], hashes[0]])
    expect(body.data[1]).toEqual({
      id: expect.stringMatching(/^btx_/),
      sessionId: paid.id,
      txHash: hashes[0],
      status: 'confirmed',
      chain: 'solana',
      asset: 'USDC',
      fromAddress: 'payer',
      toAddress: paid.payment.address,
      amount: '10.000000',
      confirmations: '1',
      amlCheck: 'passed',
      failureReason: null,
      explorerUrl: expect.stringContaining(hashes[0] as string),
      confirmedAt: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const one = (await (
      await h.request(`/api/v1/transactions/${hashes[1]}`, { key: legacyKey })
    ).json()) as Json
    expect(one.data).toMatchObject({
      sessionId: waiting.id,
      status: 'pending',
      confirmations: '0',
      amount: '1.000000',
    })
  })

  test('behavior: transaction filters, isolation, bad input and auth', async () => {
    const ids = async (query: string, key?: string) =>
      ((await (await h.request(`/api/v1/transactions${query}`, key ? { key } : {})).json()) as Json).data.map(
        (t: Json) => t.txHash,
      )
    expect(await ids('?status=confirmed')).toEqual([hashes[0]])
    expect(await ids('?chain=base&asset=usdc')).toEqual([hashes[1]])
    expect(await ids(`?sessionReference=${paid.reference}`)).toEqual([hashes[0]])
    expect(await ids(`?search=${hashes[1]}`)).toEqual([hashes[1]])
    expect(await ids(`?customerId=${paid.customer.id}&startDate=2000-01-01`)).toHaveLength(2)
    expect(await ids('?endDate=2000-01-01')).toEqual([])
    expect(await ids('', h.b.testKey)).toEqual([])
    expect(await ids('', h.a.liveKey)).toEqual([])
    expect((await h.request(`/api/v1/transactions/${hashes[0]}`, { key: h.b.testKey })).status).toBe(404)
    expect((await h.request('/api/v1/transactions?status=done')).status).toBe(400)
    expect((await h.request('/api/v1/transactions', { key: null })).status).toBe(401)
    expect((await h.request(`/api/v1/transactions/${hashes[0]}`, { key: null })).status).toBe(401)
  })
})
