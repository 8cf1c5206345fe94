import { beforeAll, expect, test } from 'vitest'
import { custodyAccount, merchantAccount } from '../ledger/chart-of-accounts.js'
import { createPendingTransfer } from '../ledger/post-transaction.js'
import { postPendingTransaction } from '../ledger/resolve-pending.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Listed = { data: { id: string; currency: string; direction: string; amount: string }[]; meta: unknown }

describeEachDatabase('balance routes', (getDb) => {
  let h: Harness
  let firstId: string
  beforeAll(async () => {
    h = await createHarness(getDb())
    for (const json of [
      { currency: 'USDT', amount: '100.5' },
      { currency: 'USDT', amount: '20' },
      { currency: 'NGN', amount: '1500' },
    ]) {
      const res = await h.request('/api/v1/sandbox/fund', { method: 'POST', json })
      expect(res.status).toBe(200)
    }
    const list = (await (await h.request('/api/v1/balance/transactions?size=100')).json()) as Listed
    firstId = list.data[0]?.id ?? ''
  })

  test('GET /balance: the funded balances', async () => {
    const res = await h.request('/api/v1/balance')
    expect(res.status).toBe(200)
    const body = (await res.json()) as { success: boolean; data: Record<string, string>[] }
    expect(body.success).toBe(true)
    const usdt = body.data.find((b) => b.currency === 'USDT')
    expect(usdt).toEqual({
      currency: 'USDT',
      available: '120.500000',
      pending: '0.000000',
      total: '120.500000',
    })
    expect(body.data.find((b) => b.currency === 'NGN')).toMatchObject({
      available: '1500.00',
      total: '1500.00',
    })
  })

  test('GET /balance: tenant and environment isolation', async () => {
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const body = (await (await h.request('/api/v1/balance', { key })).json()) as {
        data: { total: string }[]
      }
      expect(body.data.every((b) => /^0(\.0+)?$/.test(b.total))).toBe(true)
    }
  })

  test('GET /balance/transactions: list, pagination meta and filters', async () => {
    const all = (await (await h.request('/api/v1/balance/transactions')).json()) as Listed
    expect(all.meta).toEqual({ page: 1, size: 10, total: 3, totalPages: 1 })
    const paged = (await (await h.request('/api/v1/balance/transactions?page=2&size=2')).json()) as Listed
    expect(paged.meta).toEqual({ page: 2, size: 2, total: 3, totalPages: 2 })
    expect(paged.data).toHaveLength(1)
    const usdt = (await (await h.request('/api/v1/balance/transactions?currency=USDT')).json()) as Listed
    expect(usdt.data.map((t) => t.currency)).toEqual(['USDT', 'USDT'])
    const debits = (await (await h.request('/api/v1/balance/transactions?direction=debit')).json()) as Listed
    expect(debits.data).toEqual([])
    const credits = (await (
      await h.request('/api/v1/balance/transactions?direction=credit&status=completed')
    ).json()) as Listed
    expect(credits.data).toHaveLength(3)
    const future = (await (
      await h.request('/api/v1/balance/transactions?startDate=2999-01-01')
    ).json()) as Listed
    expect(future.meta).toMatchObject({ total: 0 })
    const past = (await (
      await h.request('/api/v1/balance/transactions?endDate=2000-01-01T00:00:00Z')
    ).json()) as Listed
    expect(past.data).toEqual([])
    const today = new Date().toISOString().slice(0, 10)
    const inRange = (await (
      await h.request(`/api/v1/balance/transactions?startDate=${today}&endDate=${today}`)
    ).json()) as Listed
    expect(inRange.data.length).toBeGreaterThanOrEqual(0)
  })

  test('GET /balance/transactions: merchant B sees none of A', async () => {
    const res = await h.request('/api/v1/balance/transactions', { key: h.b.testKey })
    expect(((await res.json()) as Listed).meta).toMatchObject({ total: 0 })
    const live = await h.request('/api/v1/balance/transactions', { key: h.a.liveKey })
    expect(((await live.json()) as Listed).meta).toMatchObject({ total: 0 })
  })

  test('GET /balance/transactions: bad input is a 400 validation_error', async () => {
    for (const query of [
      'page=0',
      'size=101',
      'size=0',
      'page=abc',
      'direction=sideways',
      'status=lost',
      'currency=DOGE',
      'startDate=yesterday',
      'endDate=2026-02-30',
      'source=magic',
    ]) {
      const res = await h.request(`/api/v1/balance/transactions?${query}`)
      expect(res.status, query).toBe(400)
      const body = (await res.json()) as { error: { code: string; details: { field: string }[] } }
      expect(body.error.code, query).toBe('validation_error')
      expect(body.error.details[0]?.field, query).toBe(`query.${query.split('=')[0]}`)
    }
  })

  test('GET /balance/transactions/{id}: with balanceBefore/balanceAfter; 404 for others', async () => {
    const res = await h.request(`/api/v1/balance/transactions/${firstId}`)
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: Record<string, unknown> }
    expect(data).toMatchObject({ id: firstId, direction: 'credit', status: 'completed' })
    expect(data.balanceBefore).toEqual({
      available: expect.any(String),
      pending: expect.any(String),
      total: expect.any(String),
    })
    expect(data.balanceAfter).toBeDefined()
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const other = await h.request(`/api/v1/balance/transactions/${firstId}`, { key })
      expect(other.status).toBe(404)
      expect(await other.json()).toMatchObject({ success: false, data: null, error: { code: 'not_found' } })
    }
    expect((await h.request('/api/v1/balance/transactions/btx_unknown')).status).toBe(404)
  })

  test('GET /balance/transactions/{id}: exact before/after of the newest funding', async () => {
    const { data } = (await (await h.request(`/api/v1/balance/transactions/${firstId}`)).json()) as {
      data: Record<string, unknown>
    }
    expect(data).toMatchObject({
      source: 'sandbox_funding',
      currency: 'NGN',
      amount: '1500.00',
      balanceBefore: { available: '0.00', pending: '0.00', total: '0.00' },
      balanceAfter: { available: '1500.00', pending: '0.00', total: '1500.00' },
    })
    expect(Date.parse(String(data.createdAt))).not.toBeNaN()
  })

  test('GET /balance and /balance/transactions: a pending deposit shows as pending, filterable by txHash', async () => {
    const deposit = await createPendingTransfer(h.deps, {
      environment: 'test',
      idempotencyKey: 'route-deposit',
      legs: [
        {
          debit: custodyAccount('base', 'USDT'),
          credit: merchantAccount(h.a.id),
          amount: 2_000_000n,
          currency: 'USDT',
        },
      ],
      source: 'deposit',
      txHash: '0xfeed',
    })
    const usdt = async () =>
      ((await (await h.request('/api/v1/balance')).json()) as { data: Record<string, string>[] }).data.find(
        (b) => b.currency === 'USDT',
      )
    expect(await usdt()).toEqual({
      currency: 'USDT',
      available: '120.500000',
      pending: '2.000000',
      total: '122.500000',
    })
    const byHash = (await (await h.request('/api/v1/balance/transactions?txHash=0xfeed')).json()) as {
      data: Record<string, unknown>[]
    }
    expect(byHash.data).toEqual([
      expect.objectContaining({
        source: 'deposit',
        status: 'pending',
        direction: 'credit',
        amount: '2.000000',
        txHash: '0xfeed',
        balanceBefore: { available: '120.500000', pending: '0.000000', total: '120.500000' },
        balanceAfter: { available: '120.500000', pending: '2.000000', total: '122.500000' },
      }),
    ])
    const bySource = (await (
      await h.request('/api/v1/balance/transactions?source=deposit&status=pending')
    ).json()) as Listed
    expect(bySource.data).toHaveLength(1)
    await postPendingTransaction(h.deps, { environment: 'test', transactionId: deposit.id })
    expect(await usdt()).toEqual({
      currency: 'USDT',
      available: '122.500000',
      pending: '0.000000',
      total: '122.500000',
    })
    const completed = (await (await h.request('/api/v1/balance/transactions?txHash=0xfeed')).json()) as Listed
    expect(completed.data.map((t) => (t as { status?: string }).status)).toEqual(['completed'])
    // Merchant B and A's live environment see nothing of it.
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const other = (await (
        await h.request('/api/v1/balance/transactions?txHash=0xfeed', { key })
      ).json()) as Listed
      expect(other.data).toEqual([])
    }
  })

  test('auth: every balance route is a 401 without a key', async () => {
    for (const path of [
      '/api/v1/balance',
      '/api/v1/balance/transactions',
      `/api/v1/balance/transactions/${firstId}`,
    ]) {
      const res = await h.request(path, { key: null })
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } })
    }
  })
})
