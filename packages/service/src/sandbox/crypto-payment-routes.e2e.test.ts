import { beforeAll, expect, test } from 'vitest'
import type { DepositAddress } from '../rails/types.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

describeEachDatabase('POST /sandbox/crypto-payments', (getDb) => {
  let h: Harness
  let tron: DepositAddress
  beforeAll(async () => {
    h = await createHarness(getDb())
    tron = await h.deps.rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'tron',
      purpose: 'session',
      ownerId: 'ses_route_tron',
    })
  })
  const post = (json: unknown, key?: string) =>
    h.request('/api/v1/sandbox/crypto-payments', { method: 'POST', json, ...(key ? { key } : {}) })

  test('default: records a seen payment, then confirms it when the same txHash reaches the chain count', async () => {
    const body = {
      chain: 'tron',
      asset: 'USDT',
      address: tron.address,
      amount: '12.5',
      confirmations: 0,
      txHash: 'sim_route_1',
    }
    const seen = await post(body)
    expect(seen.status).toBe(200)
    expect(((await seen.json()) as { data: unknown }).data).toMatchObject({
      chain: 'tron',
      asset: 'USDT',
      amount: '12.500000',
      address: tron.address,
      txHash: 'sim_route_1',
      confirmations: 0,
      status: 'seen',
      confirmedAt: null,
    })
    const confirmed = await post({ ...body, confirmations: 1 })
    expect(((await confirmed.json()) as { data: unknown }).data).toMatchObject({
      status: 'confirmed',
      confirmations: 1,
    })
    const rows = await h.deps.db
      .selectFrom('incoming_transfers')
      .select('status')
      .where('address_id', '=', tron.id)
      .execute()
    expect(rows).toEqual([{ status: 'confirmed' }])
  })

  test('error: live keys get 404; another merchant address is 404; bad amounts and assets are 400', async () => {
    const body = { chain: 'tron', asset: 'USDT', address: tron.address, amount: '1' }
    const live = await post(body, h.a.liveKey)
    expect(live.status).toBe(404)
    const other = await post(body, h.b.testKey)
    expect(other.status).toBe(404)
    const tooPrecise = await post({ ...body, amount: '1.0000001' })
    expect([
      tooPrecise.status,
      ((await tooPrecise.json()) as { error: { code: string } }).error.code,
    ]).toEqual([400, 'validation_error'])
    const zero = await post({ ...body, amount: '0' })
    expect(zero.status).toBe(400)
    const asset = await post({ ...body, asset: 'USDC' })
    expect([asset.status, ((await asset.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'unsupported_asset_chain',
    ])
    const rows = await h.deps.db
      .selectFrom('incoming_transfers')
      .select('id')
      .where('address_id', '=', tron.id)
      .execute()
    expect(rows).toHaveLength(1)
  })
})
