import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { setTestFxRates } from '../testing/fx-fixtures.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Body<T> = { success: boolean; data: T; error?: { code: string; param?: string } }
type Quotation = { id: string; targetAmount: string; rate: string; fee: string; executed: boolean }
type SwapBody = {
  id: string
  status: string
  quotation: Quotation
  targetAmount: string
  sourceAmount: string
}

describeEachDatabase('swap routes', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
    await setTestFxRates(h.deps.rails)
    const fund = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      json: { currency: 'USDT', amount: '1000' },
    })
    expect(fund.status).toBe(200)
  })
  const read = async <T>(res: Response) => (await res.json()) as Body<T>
  const quote = (json: unknown, key?: string) =>
    h.request('/api/v1/swap/quotation', { method: 'POST', json, ...(key ? { key } : {}) })
  const execute = (id: string, json?: unknown, key?: string) =>
    h.request(`/api/v1/swap/execute/${id}`, {
      method: 'POST',
      ...(json === undefined ? {} : { json }),
      ...(key ? { key } : {}),
    })
  const countRows = async () => {
    const counts = []
    for (const table of ['swap_quotations', 'swaps', 'ledger_transfers', 'events'] as const) {
      const row = await h.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
      counts.push(Number(row.n))
    }
    return counts
  }

  test('auth: every swap route is a 401 without a key', async () => {
    const routes = [
      ['GET', '/swap/rates'],
      ['GET', '/swap/estimate?fromCurrency=USDT&toCurrency=NGN&amount=1'],
      ['POST', '/swap/quotation'],
      ['GET', '/swap/quotation/swq_1'],
      ['POST', '/swap/execute/swq_1'],
      ['GET', '/swaps'],
      ['GET', '/swaps/swp_1'],
    ]
    for (const [method, path] of routes) {
      const res = await h.request(`/api/v1${path}`, { method: method ?? 'GET', key: null })
      expect(res.status, `${method} ${path}`).toBe(401)
    }
  })

  test('GET /swap/rates: 8-decimal rates with the spread taken off', async () => {
    const body = await read<{ fromCurrency: string; toCurrency: string; rate: string }[]>(
      await h.request('/api/v1/swap/rates'),
    )
    expect(body.data.find((r) => r.fromCurrency === 'USDT' && r.toCurrency === 'NGN')).toMatchObject({
      rate: '1496.25000000',
      timestamp: expect.any(String),
    })
    expect(body.data.every((r) => /^\d+\.\d{8}$/.test(r.rate))).toBe(true)
  })

  test('GET /swap/estimate: the numbers of a quotation, rounded down; bad input is 400', async () => {
    const ok = await read<Record<string, string>>(
      await h.request('/api/v1/swap/estimate?fromCurrency=USDT&toCurrency=NGN&amount=100'),
    )
    expect(ok.data).toEqual({
      fromCurrency: 'USDT',
      toCurrency: 'NGN',
      sourceAmount: '100.000000',
      targetAmount: '149625.00',
      rate: '1496.25000000',
    })
    const down = await read<Record<string, string>>(
      await h.request('/api/v1/swap/estimate?fromCurrency=NGN&toCurrency=USDT&amount=1000.01'),
    )
    // NGN/USDT 1/1500 = 0.00066666 (8 decimals, down), less 25 bps = 0.00066499 (down);
    // 1000.01 NGN × 0.00066499 = 0.6649966499 USDT → 0.664996 (down).
    expect(down.data).toMatchObject({ rate: '0.00066499', targetAmount: '0.664996' })
    for (const query of [
      'fromCurrency=USDT&toCurrency=USDT&amount=1',
      'fromCurrency=USDT&toCurrency=NGN&amount=1.0000001',
      'fromCurrency=USDT&toCurrency=NGN&amount=0',
      'fromCurrency=USDT&toCurrency=NGN&amount=-5',
      'fromCurrency=USDT&toCurrency=NGN',
      'fromCurrency=BTC&toCurrency=NGN&amount=1',
      'fromCurrency=USDT&toCurrency=NGN&amount=0.000001',
    ]) {
      const res = await h.request(`/api/v1/swap/estimate?${query}`)
      expect(res.status, query).toBe(400)
      expect((await read(res)).error?.code, query).toBe('validation_error')
    }
  })

  test('POST /swap/quotation: 201 with a 30-second lock; bad input writes nothing', async () => {
    const res = await quote({ fromCurrency: 'USDT', toCurrency: 'NGN', amount: '10.5' })
    expect(res.status).toBe(201)
    const body = await read<Quotation & { createdAt: string; expiresAt: string }>(res)
    expect(body.data).toMatchObject({
      id: expect.stringMatching(/^swq_/),
      fromCurrency: 'USDT',
      toCurrency: 'NGN',
      sourceAmount: '10.500000',
      targetAmount: '15710.62',
      rate: '1496.25000000',
      fee: '39.38',
      executed: false,
    })
    expect(Date.parse(body.data.expiresAt) - Date.parse(body.data.createdAt)).toBe(30_000)
    const before = await countRows()
    for (const json of [
      { fromCurrency: 'USDT', toCurrency: 'USDT', amount: '1' },
      { fromCurrency: 'USDT', toCurrency: 'NGN', amount: '1.1234567' },
      { fromCurrency: 'USDT', toCurrency: 'NGN', amount: 5 },
      { fromCurrency: 'USDT', toCurrency: 'NGN' },
      { fromCurrency: 'USDT', toCurrency: 'NGN', amount: '1', extra: true },
      { fromCurrency: 'XYZ', toCurrency: 'NGN', amount: '1' },
    ]) {
      const bad = await quote(json)
      expect(bad.status, JSON.stringify(json)).toBe(400)
      expect((await read(bad)).error?.code).toBe('validation_error')
    }
    expect(await countRows()).toEqual(before)
  })

  test('GET /swap/quotation/{id}: found for its owner only', async () => {
    const created = await read<Quotation>(
      await quote({ fromCurrency: 'USDT', toCurrency: 'NGN', amount: '1' }),
    )
    const res = await h.request(`/api/v1/swap/quotation/${created.data.id}`)
    expect(res.status).toBe(200)
    expect((await read<Quotation>(res)).data).toEqual(created.data)
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const other = await h.request(`/api/v1/swap/quotation/${created.data.id}`, { key })
      expect(other.status).toBe(404)
    }
  })

  test('POST /swap/execute: one linked ledger transaction, balances move, swap.completed emitted', async () => {
    const created = await read<Quotation>(
      await quote({ fromCurrency: 'USDT', toCurrency: 'NGN', amount: '100' }),
    )
    const res = await execute(created.data.id, { webhookUrl: 'https://hooks.example.com/swaps' })
    expect(res.status).toBe(200)
    const swap = (await read<SwapBody>(res)).data
    expect(swap).toMatchObject({
      id: expect.stringMatching(/^swp_/),
      status: 'completed',
      sourceAmount: '100.000000',
      targetAmount: '149625.00',
      fee: '375.00',
      completedAt: expect.any(String),
      quotation: { id: created.data.id, executed: true },
    })
    const balances = await read<{ currency: string; available: string }[]>(await h.request('/api/v1/balance'))
    expect(balances.data.find((b) => b.currency === 'NGN')?.available).toBe('149625.00')
    const txs = await read<{ direction: string; amount: string; currency: string; sourceId: string }[]>(
      await h.request('/api/v1/balance/transactions?source=swap'),
    )
    expect(txs.data.map((t) => [t.direction, t.currency, t.amount, t.sourceId])).toEqual([
      ['debit', 'NGN', '375.00', swap.id],
      ['credit', 'NGN', '150000.00', swap.id],
      ['debit', 'USDT', '100.000000', swap.id],
    ])
    const event = await h.deps.db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'swap.completed')
      .executeTakeFirstOrThrow()
    expect(event.webhook_url).toBe('https://hooks.example.com/swaps')
    expect(event.payload).toEqual({ event: 'swap.completed', data: { swap } })
    const again = await execute(created.data.id)
    expect(again.status).toBe(400)
    expect((await read(again)).error?.code).toBe('quote_already_used')
  })

  test('POST /swap/execute: insufficient balance, unknown, foreign and bad bodies are refused; nothing written', async () => {
    const big = await read<Quotation>(
      await quote({ fromCurrency: 'USDT', toCurrency: 'NGN', amount: '5000' }),
    )
    const small = await read<Quotation>(await quote({ fromCurrency: 'USDT', toCurrency: 'NGN', amount: '1' }))
    const before = await countRows()
    const short = await execute(big.data.id)
    expect(short.status).toBe(400)
    expect((await read(short)).error?.code).toBe('insufficient_balance')
    for (const [id, json, key, status, code] of [
      ['swq_missing', undefined, undefined, 404, 'not_found'],
      [small.data.id, undefined, h.b.testKey, 404, 'not_found'],
      [small.data.id, undefined, h.a.liveKey, 404, 'not_found'],
      [small.data.id, { webhookUrl: 'http://hooks.example.com/x' }, undefined, 400, 'validation_error'],
      [small.data.id, { webhookUrl: 'not a url' }, undefined, 400, 'validation_error'],
      [small.data.id, { webhookUrl: 'https://x.example', other: 1 }, undefined, 400, 'validation_error'],
    ] as const) {
      const res = await execute(id, json, key)
      expect(res.status, `${id} ${JSON.stringify(json)}`).toBe(status)
      expect((await read(res)).error?.code).toBe(code)
    }
    expect(await countRows()).toEqual(before)
    const quotation = await read<Quotation>(await h.request(`/api/v1/swap/quotation/${big.data.id}`))
    expect(quotation.data.executed).toBe(false)
    // A refused execution leaves the quotation usable: without a body it still executes.
    expect((await execute(small.data.id)).status).toBe(200)
  })

  test('GET /swaps and /swaps/{id}: list with filters, one swap, isolation', async () => {
    const ngn = await read<Quotation>(
      await quote({ fromCurrency: 'NGN', toCurrency: 'USDT', amount: '1500' }),
    )
    expect((await execute(ngn.data.id)).status).toBe(200)
    const list = (await (await h.request('/api/v1/swaps')).json()) as {
      data: SwapBody[]
      meta: { total: number }
    }
    expect(list.meta.total).toBe(3)
    expect(list.data[0]?.quotation.id).toBe(ngn.data.id)
    const filtered = (await (await h.request('/api/v1/swaps?fromCurrency=NGN&toCurrency=USDT')).json()) as {
      data: SwapBody[]
    }
    expect(filtered.data.map((s) => s.quotation.id)).toEqual([ngn.data.id])
    const none = (await (await h.request('/api/v1/swaps?startDate=2999-01-01')).json()) as { data: unknown[] }
    expect(none.data).toEqual([])
    const id = list.data[0]?.id ?? ''
    const one = await h.request(`/api/v1/swaps/${id}`)
    expect(one.status).toBe(200)
    expect((await read<SwapBody>(one)).data).toEqual(list.data[0])
    for (const key of [h.b.testKey, h.a.liveKey]) {
      expect((await h.request(`/api/v1/swaps/${id}`, { key })).status).toBe(404)
      const empty = (await (await h.request('/api/v1/swaps', { key })).json()) as { data: unknown[] }
      expect(empty.data).toEqual([])
    }
  })
})
