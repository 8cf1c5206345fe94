import { beforeAll, describe, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const sessionKeys = [
  'id',
  'reference',
  'title',
  'description',
  'type',
  'url',
  'cancelUrl',
  'successUrl',
  'customer',
  'metadata',
  'invoiceId',
  'refundStatus',
  'isRefunded',
  'isUnderpaymentAccepted',
  'createdAt',
  'expiresAt',
  'completedAt',
]
const currentKeys = [
  ...sessionKeys,
  'state',
  'amount',
  'amountPaid',
  'currency',
  'settlements',
  'payment',
].sort()
const legacyKeys = [...sessionKeys, 'status', 'amount', 'payment'].sort()
const paymentKeys = [
  'asset',
  'chain',
  'amount',
  'amountReceived',
  'overpaidAmount',
  'address',
  'gasFee',
  'feePaidBy',
  'conversionRate',
  'txHash',
]

describeEachDatabase('payment session routes', (getDb) => {
  let h: Harness
  let legacyKey: string
  const paid = { title: 'Order 1', amount: '100.00', currency: 'USD' }
  const full = {
    ...paid,
    asset: 'USDC',
    chain: 'base',
    customer: { email: 'ada@example.com', firstName: 'Ada' },
  }

  beforeAll(async () => {
    h = await createHarness(getDb(), { rails: createFakeSessionRails })
    legacyKey = (await createApiKey(h.deps, { merchantId: h.a.id, environment: 'test', format: 'legacy' }))
      .key
  })

  const create = async (json: unknown, key?: string) => {
    const res = await h.request('/api/v1/payments', { method: 'POST', json, ...(key ? { key } : {}) })
    return { status: res.status, body: (await res.json()) as Json }
  }
  const counts = async () => {
    const out: Record<string, number> = {}
    for (const table of ['payment_sessions', 'customers', 'jobs', 'ledger_transfers'] as const) {
      const row = await h.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
      out[table] = Number(row.n)
    }
    return out
  }

  describe('POST /payments', () => {
    test('default: a session without asset is open, pending, with every field present', async () => {
      const { status, body } = await create(paid)
      expect(status).toBe(200)
      const session = body.data
      expect(Object.keys(session).sort()).toEqual(currentKeys)
      expect(Object.keys(session.payment).sort()).toEqual(['status', ...paymentKeys].sort())
      expect(session).toMatchObject({
        state: 'open',
        amount: '100.00',
        amountPaid: '0.00',
        currency: 'USD',
        type: 'checkout',
        description: '',
        customer: null,
        cancelUrl: null,
        completedAt: null,
        url: `http://127.0.0.1:4020/checkout/${session.reference}`,
        payment: {
          status: 'pending',
          asset: null,
          chain: null,
          address: null,
          amount: null,
          feePaidBy: 'merchant',
        },
        settlements: { currency: null, gross: { amount: null }, net: { amount: null } },
      })
      const job = await h.deps.db
        .selectFrom('jobs')
        .selectAll()
        .where('key', '=', session.id)
        .executeTakeFirstOrThrow()
      expect(job.kind).toBe('payments.expire')
      expect(job.run_at.toISOString()).toBe(session.expiresAt)
    })

    test('behavior: asset, chain and a customer e-mail create the address and lock the rate at once', async () => {
      const { status, body } = await create({ ...full, metadata: { orderId: 'A-1' } })
      expect(status).toBe(200)
      expect(body.data.payment).toMatchObject({
        status: 'pending',
        asset: 'USDC',
        chain: 'base',
        amount: '100.000000',
        amountReceived: '0.000000',
        conversionRate: '1.00000000',
        address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        gasFee: '0.019501',
      })
      expect(body.data.customer).toMatchObject({ email: 'ada@example.com', firstName: 'Ada' })
      expect(body.data.metadata).toEqual({ orderId: 'A-1' })
      // Merchant pays: 1 % processing and the network fee come out of the 100 USDC.
      expect(body.data.settlements).toEqual({
        currency: 'USDC',
        customerPaid: { amount: '100.000000' },
        gross: { amount: '100.000000', conversionRate: '1' },
        fees: {
          processing: { amount: '1.000000', paidBy: 'merchant' },
          gas: { amount: '0.019501', paidBy: 'merchant' },
        },
        net: { amount: '98.980499' },
      })
    })

    test('behavior: a customer fee payer pays amount + fees; a settlement currency converts', async () => {
      const { body } = await create({ ...full, feePayer: 'customer', settlementCurrency: 'NGN' })
      expect(body.data.payment.amount).toBe('101.019501')
      expect(body.data.settlements).toMatchObject({
        currency: 'NGN',
        gross: { amount: '151529.25', conversionRate: '1500.00000000' },
        fees: { processing: { paidBy: 'customer' } },
        net: { amount: '150000.00' },
      })
    })

    test('behavior: a legacy key gets status and nested amounts', async () => {
      const { status, body } = await create(full, legacyKey)
      expect(status).toBe(200)
      expect(Object.keys(body.data).sort()).toEqual(legacyKeys)
      expect(Object.keys(body.data.payment).sort()).toEqual([...paymentKeys].sort())
      expect(body.data.status).toBe('pending')
      expect(body.data.amount).toMatchObject({
        value: '100.00',
        currency: 'USD',
        paid: '0.00',
        gross: { amount: '100.000000', currency: 'USDC' },
        net: { amount: '98.980499', currency: 'USDC' },
      })
      const row = await h.deps.db
        .selectFrom('payment_sessions')
        .select('response_format')
        .where('id', '=', body.data.id)
        .executeTakeFirstOrThrow()
      expect(row.response_format).toBe('legacy')
    })

    test('behavior: bad input is a 400 with a code and writes nothing', async () => {
      const before = await counts()
      const cases: [unknown, string, string][] = [
        [{ ...paid, amount: '0' }, 'validation_error', 'amount'],
        [{ ...paid, amount: '1.001' }, 'validation_error', 'amount'],
        [{ ...paid, amount: 12 }, 'validation_error', 'amount'],
        [{ ...paid, currency: 'XYZ' }, 'validation_error', 'currency'],
        [{ ...paid, title: '' }, 'validation_error', 'title'],
        [{ ...paid, cancelUrl: 'http://example.com/cancel' }, 'validation_error', 'cancelUrl'],
        [{ ...paid, webhookUrl: 'ftp://example.com' }, 'validation_error', 'webhookUrl'],
        [{ ...paid, successUrl: 'not a url' }, 'validation_error', 'successUrl'],
        [{ ...full, asset: 'DOGE' }, 'unsupported_asset_chain', 'asset'],
        [{ ...full, chain: 'mars' }, 'validation_error', 'chain'],
        [{ ...paid, asset: 'NOPE' }, 'unsupported_asset_chain', 'asset'],
        [{ ...full, customer: { email: 'not-an-email' } }, 'validation_error', 'customer.email'],
      ]
      for (const [json, code, param] of cases) {
        const { status, body } = await create(json)
        expect(status, JSON.stringify(json)).toBe(400)
        expect(body, JSON.stringify(json)).toMatchObject({
          success: false,
          data: null,
          error: { code, param },
        })
      }
      expect(await counts()).toEqual(before)
    })

    test('behavior: http to loopback is allowed in the sandbox only when configured', async () => {
      const local = { ...paid, webhookUrl: 'http://127.0.0.1:9999/hook' }
      expect((await create(local)).status).toBe(200)
      expect((await create(local, h.a.liveKey)).status).toBe(400)
      h.deps.settings.allowLoopbackWebhooks = false
      try {
        expect((await create(local)).status).toBe(400)
      } finally {
        h.deps.settings.allowLoopbackWebhooks = true
      }
    })

    test('auth: no key is a 401 and writes nothing', async () => {
      const before = await counts()
      const res = await h.request('/api/v1/payments', { method: 'POST', json: paid, key: null })
      expect(res.status).toBe(401)
      expect(await counts()).toEqual(before)
    })
  })

  describe('POST /payments/{reference}/address', () => {
    test('default: supplies asset, chain and customer, locks the rate; repeating returns the same address', async () => {
      const { body } = await create(paid)
      const url = `/api/v1/payments/${body.data.reference}/address`
      const json = { asset: 'usdc', chain: 'solana', customer: { email: 'bob@example.com' } }
      const first = (await (await h.request(url, { method: 'POST', json })).json()) as Json
      expect(first.data.payment).toMatchObject({ asset: 'USDC', chain: 'solana', amount: '100.000000' })
      expect(first.data.payment.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
      expect(first.data.customer.email).toBe('bob@example.com')
      const again = (await (await h.request(url, { method: 'POST', json: {} })).json()) as Json
      expect(again.data.payment.address).toBe(first.data.payment.address)
      const legacy = (await (
        await h.request(url, { method: 'POST', json: {}, key: legacyKey })
      ).json()) as Json
      expect(legacy.data).toMatchObject({ status: 'pending', amount: { value: '100.00' } })
    })

    test('behavior: a fixed asset or chain cannot change; a missing one is a 400; nothing written', async () => {
      const { body } = await create({ ...paid, asset: 'USDC' })
      const url = `/api/v1/payments/${body.data.reference}/address`
      const before = await counts()
      for (const [json, code, param] of [
        [{ asset: 'USDT', chain: 'bsc' }, 'validation_error', 'asset'],
        [{}, 'validation_error', 'chain'],
        [{ chain: 'tron' }, 'unsupported_asset_chain', 'asset'],
      ] as const) {
        const res = await h.request(url, { method: 'POST', json })
        expect(res.status, JSON.stringify(json)).toBe(400)
        expect(await res.json()).toMatchObject({ error: { code, param } })
      }
      expect(await counts()).toEqual(before)
    })

    test('behavior: a closed session is invalid_session_state; unknown and foreign references are 404', async () => {
      const { body } = await create(paid)
      await h.deps.db
        .updateTable('payment_sessions')
        .set({ state: 'closed', payment_status: 'expired' })
        .where('id', '=', body.data.id)
        .execute()
      const json = { asset: 'USDC', chain: 'base' }
      const closed = await h.request(`/api/v1/payments/${body.data.reference}/address`, {
        method: 'POST',
        json,
      })
      expect(closed.status).toBe(400)
      expect(await closed.json()).toMatchObject({ error: { code: 'invalid_session_state' } })
      const open = await create(paid)
      const foreign = await h.request(`/api/v1/payments/${open.body.data.reference}/address`, {
        method: 'POST',
        json,
        key: h.b.testKey,
      })
      expect(foreign.status).toBe(404)
      const unknown = await h.request('/api/v1/payments/ps_nope/address', { method: 'POST', json })
      expect(unknown.status).toBe(404)
      expect(
        (await h.request(`/api/v1/payments/x/address`, { method: 'POST', json, key: null })).status,
      ).toBe(401)
    })
  })

  describe('GET /payments/reference/{reference} and GET /payments', () => {
    test('default: read back in both formats; includeTransactions adds the array', async () => {
      const { body } = await create(full)
      const url = `/api/v1/payments/reference/${body.data.reference}`
      const current = (await (await h.request(url)).json()) as Json
      expect(current.data).toEqual(body.data)
      const withTx = (await (await h.request(`${url}?includeTransactions=true`)).json()) as Json
      expect(withTx.data.transactions).toEqual([])
      const legacy = (await (await h.request(url, { key: legacyKey })).json()) as Json
      expect(legacy.data.status).toBe('pending')
      expect(legacy.data.state).toBeUndefined()
      expect((await h.request(url, { key: h.b.testKey })).status).toBe(404)
      expect((await h.request(url, { key: h.a.liveKey })).status).toBe(404)
      expect((await h.request(url, { key: null })).status).toBe(401)
      expect((await h.request(`${url}?includeTransactions=yes`)).status).toBe(400)
    })

    test('behavior: filters narrow the list; other merchants and environments never show', async () => {
      const ngn = await create({ ...full, amount: '2500.50', currency: 'NGN', title: 'Naira order' })
      const list = async (query: string, key?: string) =>
        (await (await h.request(`/api/v1/payments${query}`, key ? { key } : {})).json()) as Json
      const byRef = await list(`?search=${ngn.body.data.reference}`)
      expect(byRef.data.map((s: Json) => s.id)).toEqual([ngn.body.data.id])
      const byAddress = await list(`?search=${ngn.body.data.payment.address}`)
      expect(byAddress.data.map((s: Json) => s.id)).toEqual([ngn.body.data.id])
      const byCurrency = await list('?currency=NGN&minAmount=2500.50&maxAmount=2500.50')
      expect(byCurrency.meta.total).toBe(1)
      expect((await list('?currency=NGN&minAmount=2500.51')).meta.total).toBe(0)
      const open = await list('?state=open&status=pending&chain=base&asset=usdc&size=100')
      expect(open.data.length).toBeGreaterThan(1)
      expect(open.data.every((s: Json) => s.payment.chain === 'base' && s.state === 'open')).toBe(true)
      const customerId = ngn.body.data.customer.id
      const byCustomer = await list(`?customerId=${customerId}&includeTransactions=true`)
      expect(
        byCustomer.data.every((s: Json) => s.customer.id === customerId && Array.isArray(s.transactions)),
      ).toBe(true)
      expect((await list('?state=closed&isRefunded=true')).meta.total).toBe(0)
      expect((await list('', h.b.testKey)).meta.total).toBe(0)
      expect((await list('', h.a.liveKey)).meta.total).toBe(0)
      const legacy = await list(`?search=${ngn.body.data.reference}`, legacyKey)
      expect(legacy.data[0]).toMatchObject({
        status: 'pending',
        amount: { value: '2500.50', currency: 'NGN' },
      })
      const bad = await h.request('/api/v1/payments?minAmount=-1')
      expect(bad.status).toBe(400)
      expect((await h.request('/api/v1/payments', { key: null })).status).toBe(401)
    })
  })

  describe('GET /payments/estimate', () => {
    test('default: prices without locking; the session reference fills missing values', async () => {
      const res = await h.request('/api/v1/payments/estimate?amount=30.00&currency=USD&asset=ETH&chain=base')
      expect(res.status).toBe(200)
      expect(((await res.json()) as Json).data).toEqual({
        fiat: { amount: '30.00', currency: 'USD' },
        crypto: { amount: '0.009999900000000000', asset: 'ETH', chain: 'base' },
        fees: {
          networkFee: '0.000002100000000000',
          processingFee: '0.000099999000000000',
          paidBy: 'merchant',
        },
        conversionRate: '0.00033333',
        settlementCurrency: 'USDT',
      })
      const { body } = await create(full)
      const byRef = await h.request(
        `/api/v1/payments/estimate?reference=${body.data.reference}&feePayer=customer`,
      )
      expect(((await byRef.json()) as Json).data.crypto).toEqual({
        amount: '101.019501',
        asset: 'USDC',
        chain: 'base',
      })
      const legacy = await h.request(
        '/api/v1/payments/estimate?amount=1&currency=USD&asset=USDC&chain=base',
        {
          key: legacyKey,
        },
      )
      expect(((await legacy.json()) as Json).data.crypto.amount).toBe('1.000000')
    })

    test('behavior: missing values, unsupported pairs and foreign references are refused', async () => {
      const get = (query: string, key?: string) =>
        h.request(`/api/v1/payments/estimate${query}`, key ? { key } : {})
      const missing = await get('?amount=1&currency=USD&asset=USDC')
      expect(missing.status).toBe(400)
      expect(await missing.json()).toMatchObject({ error: { code: 'validation_error', param: 'chain' } })
      const unsupported = await get('?amount=1&currency=USD&asset=SOL&chain=base')
      expect(await unsupported.json()).toMatchObject({ error: { code: 'unsupported_asset_chain' } })
      expect((await get('?amount=0&currency=USD&asset=USDC&chain=base')).status).toBe(400)
      const { body } = await create(full)
      expect((await get(`?reference=${body.data.reference}`, h.b.testKey)).status).toBe(404)
      expect((await h.request('/api/v1/payments/estimate', { key: null })).status).toBe(401)
    })
  })
})
