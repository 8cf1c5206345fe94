import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Account = {
  id: string
  isParent: boolean
  settlementCurrency: string
  customer: { id: string } | null
  staticDepositAddresses: { chain: string; address: string }[]
  ngnVirtualAccounts: { accountNumber: string; accountReference: string; accountName: string }[]
}
type Body<T> = { success: boolean; data: T; meta?: { total: number }; error?: { code: string } }

describeEachDatabase('deposit account routes', (getDb) => {
  let h: Harness
  let customerId: string
  beforeAll(async () => {
    h = await createHarness(getDb())
    const res = await h.request('/api/v1/customers', {
      method: 'POST',
      json: { email: 'chidi@example.com', firstName: 'Chidi', lastName: 'Okafor' },
    })
    customerId = ((await res.json()) as Body<{ id: string }>).data.id
  })
  const read = async <T>(res: Response) => (await res.json()) as Body<T>
  const post = (path: string, json?: unknown, key?: string) =>
    h.request(`/api/v1/deposits/accounts${path}`, {
      method: 'POST',
      ...(json === undefined ? {} : { json }),
      ...(key ? { key } : {}),
    })
  const countRows = async () => {
    const counts = []
    for (const table of ['deposit_accounts', 'deposit_account_identities'] as const) {
      const row = await h.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
      counts.push(Number(row.n))
    }
    return counts
  }

  test('auth: every deposit-account route is a 401 without a key', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['POST', ''],
      ['GET', '/parent'],
      ['GET', '/customer/cus_1'],
      ['GET', '/dacc_1'],
      ['PATCH', '/dacc_1'],
      ['POST', '/dacc_1/identities'],
    ] as const) {
      expect((await h.request(`/api/v1/deposits/accounts${path}`, { method, key: null })).status).toBe(401)
    }
  })

  test('POST /deposits/accounts: one account per holder; the parent is always default', async () => {
    const res = await post('', { customerId, settlementCurrency: 'USDT' })
    expect(res.status).toBe(200)
    const account = (await read<Account>(res)).data
    expect(account).toMatchObject({
      id: expect.stringMatching(/^dacc_/),
      status: 'active',
      isParent: false,
      settlementCurrency: 'USDT',
      customer: { id: customerId, email: 'chidi@example.com' },
      staticDepositAddresses: [],
      ngnVirtualAccounts: [],
    })
    const again = (await read<Account>(await post('', { customerId, settlementCurrency: 'NGN' }))).data
    expect(again).toEqual(account)
    const parent = (await read<Account>(await post(''))).data
    expect(parent).toMatchObject({ isParent: true, settlementCurrency: 'default', customer: null })
    expect((await read<Account>(await post('', {}))).data.id).toBe(parent.id)
    const viaGet = await read<Account>(await h.request('/api/v1/deposits/accounts/parent'))
    expect(viaGet.data.id).toBe(parent.id)
    const otherParent = await read<Account>(
      await h.request('/api/v1/deposits/accounts/parent', { key: h.b.testKey }),
    )
    expect(otherParent.data.id).not.toBe(parent.id)
  })

  test('POST /deposits/accounts: bad input and foreign customers write nothing', async () => {
    const before = await countRows()
    for (const [json, status, code] of [
      [{ settlementCurrency: 'USDT' }, 400, 'validation_error'],
      [{ customerId, settlementCurrency: 'EUR' }, 400, 'validation_error'],
      [{ customerId, extra: 1 }, 400, 'validation_error'],
      [{ customerId: 'cus_missing' }, 404, 'not_found'],
    ] as const) {
      const res = await post('', json)
      expect(res.status, JSON.stringify(json)).toBe(status)
      expect((await read(res)).error?.code).toBe(code)
    }
    const foreign = await post('', { customerId }, h.b.testKey)
    expect(foreign.status).toBe(404)
    expect(await countRows()).toEqual(before)
  })

  test('GET /deposits/accounts, /{id}, /customer/{customerId}: list, one, isolation', async () => {
    const list = await read<Account[]>(await h.request('/api/v1/deposits/accounts?status=active'))
    expect(list.meta?.total).toBe(2)
    const byCustomer = await read<Account>(
      await h.request(`/api/v1/deposits/accounts/customer/${customerId}`),
    )
    expect(byCustomer.data.customer?.id).toBe(customerId)
    const one = await read<Account>(await h.request(`/api/v1/deposits/accounts/${byCustomer.data.id}`))
    expect(one.data).toEqual(byCustomer.data)
    for (const key of [h.b.testKey, h.a.liveKey]) {
      expect((await h.request(`/api/v1/deposits/accounts/${byCustomer.data.id}`, { key })).status).toBe(404)
      expect((await h.request(`/api/v1/deposits/accounts/customer/${customerId}`, { key })).status).toBe(404)
      const theirs = await read<Account[]>(await h.request('/api/v1/deposits/accounts', { key }))
      expect(theirs.data.some((a) => a.id === byCustomer.data.id)).toBe(false)
    }
  })

  test('PATCH /deposits/accounts/{id}: settlement currency of customer accounts only', async () => {
    const account = (await read<Account>(await h.request(`/api/v1/deposits/accounts/customer/${customerId}`)))
      .data
    const parent = (await read<Account>(await h.request('/api/v1/deposits/accounts/parent'))).data
    const patch = (id: string, json: unknown, key?: string) =>
      h.request(`/api/v1/deposits/accounts/${id}`, { method: 'PATCH', json, ...(key ? { key } : {}) })
    const res = await patch(account.id, { settlementCurrency: 'USDC' })
    expect(res.status).toBe(200)
    expect((await read<Account>(res)).data.settlementCurrency).toBe('USDC')
    const refused = await patch(parent.id, { settlementCurrency: 'USDT' })
    expect(refused.status).toBe(400)
    expect((await read(refused)).error?.code).toBe('validation_error')
    expect((await patch(account.id, { settlementCurrency: 'USDT' }, h.b.testKey)).status).toBe(404)
    expect((await patch(account.id, {})).status).toBe(400)
    expect((await patch(account.id, { settlementCurrency: 'BTC' })).status).toBe(400)
    const after = (await read<Account>(await h.request(`/api/v1/deposits/accounts/${account.id}`))).data
    expect(after.settlementCurrency).toBe('USDC')
  })

  test('POST /deposits/accounts/{id}/identities: one static address per chain, one NGN virtual account', async () => {
    const account = (await read<Account>(await h.request(`/api/v1/deposits/accounts/customer/${customerId}`)))
      .data
    const add = (json: unknown, key?: string) => post(`/${account.id}/identities`, json, key)
    const base = (await read<Account>(await add({ type: 'static_deposit_address', chain: 'base' }))).data
    expect(base.staticDepositAddresses).toEqual([
      { chain: 'base', address: expect.stringMatching(/^0x/), createdAt: expect.any(String) },
    ])
    const again = (await read<Account>(await add({ type: 'static_deposit_address', chain: 'base' }))).data
    expect(again.staticDepositAddresses).toEqual(base.staticDepositAddresses)
    const solana = (await read<Account>(await add({ type: 'static_deposit_address', chain: 'solana' }))).data
    expect(solana.staticDepositAddresses.map((a) => a.chain)).toEqual(['base', 'solana'])
    const va = await add({ type: 'ngn_virtual_account', bvn: '12345678901', currency: 'NGN' })
    expect(va.status).toBe(200)
    const withVa = (await read<Account>(va)).data
    expect(withVa.ngnVirtualAccounts).toEqual([
      expect.objectContaining({
        accountName: 'Chidi Okafor',
        accountNumber: expect.stringMatching(/^\d{10}$/),
      }),
    ])
    const vaAgain = (await read<Account>(await add({ type: 'ngn_virtual_account', bvn: '10987654321' }))).data
    expect(vaAgain.ngnVirtualAccounts).toEqual(withVa.ngnVirtualAccounts)
    const before = await countRows()
    for (const [json, status] of [
      [{ type: 'ngn_virtual_account', bvn: '1234567890' }, 400],
      [{ type: 'ngn_virtual_account' }, 400],
      [{ type: 'static_deposit_address' }, 400],
      [{ type: 'static_deposit_address', chain: 'fantom' }, 400],
      [{ type: 'email' }, 400],
    ] as const) {
      const res = await add(json)
      expect(res.status, JSON.stringify(json)).toBe(status)
    }
    expect((await add({ type: 'static_deposit_address', chain: 'tron' }, h.b.testKey)).status).toBe(404)
    expect(
      (await post('/dacc_missing/identities', { type: 'static_deposit_address', chain: 'tron' })).status,
    ).toBe(404)
    expect(await countRows()).toEqual(before)
  })
})
