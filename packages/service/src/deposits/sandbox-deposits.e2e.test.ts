import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { setTestFxRates } from '../testing/fx-fixtures.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { subscribeDeposits } from './subscribe-deposits.js'

type Body<T> = { data: T; error?: { code: string } }
type Account = {
  id: string
  staticDepositAddresses: { chain: string; address: string }[]
  ngnVirtualAccounts: { accountNumber: string }[]
}
type Deposit = {
  id: string
  status: string
  currency: string
  amount: string
  netAmount: string
  fiat: unknown
}

// End to end through the real rails: the sandbox routes record transfers the way the watchers and
// the virtual-account provider do, and the subscription turns them into deposits.
describeEachDatabase('deposits through the sandbox rails', (getDb) => {
  let h: Harness
  let unsubscribe: () => void
  let account: Account
  beforeAll(async () => {
    h = await createHarness(getDb())
    await setTestFxRates(h.deps.rails)
    unsubscribe = subscribeDeposits(h.deps)
    const customer = await h.request('/api/v1/customers', {
      method: 'POST',
      json: { email: 'tunde@example.com', firstName: 'Tunde' },
    })
    const customerId = ((await customer.json()) as Body<{ id: string }>).data.id
    const created = await h.request('/api/v1/deposits/accounts', { method: 'POST', json: { customerId } })
    const id = ((await created.json()) as Body<Account>).data.id
    for (const json of [
      { type: 'static_deposit_address', chain: 'tron' },
      { type: 'ngn_virtual_account', bvn: '12312312312' },
    ]) {
      const res = await h.request(`/api/v1/deposits/accounts/${id}/identities`, { method: 'POST', json })
      expect(res.status).toBe(200)
      account = ((await res.json()) as Body<Account>).data
    }
  })
  afterAll(() => unsubscribe())
  const read = async <T>(res: Response) => (await res.json()) as Body<T>
  const deposits = async (query: string) =>
    (await read<Deposit[]>(await h.request(`/api/v1/deposits${query}`))).data

  test('a simulated USDT payment to a static address: pending when seen, completed at the confirmation count', async () => {
    const address = account.staticDepositAddresses[0]?.address ?? ''
    const pay = (confirmations: number, txHash?: string) =>
      h.request('/api/v1/sandbox/crypto-payments', {
        method: 'POST',
        json: {
          chain: 'tron',
          asset: 'USDT',
          address,
          amount: '40',
          confirmations,
          ...(txHash ? { txHash } : {}),
        },
      })
    const seen = await pay(0)
    expect(seen.status).toBeLessThan(300)
    const { txHash } = (await read<{ txHash: string }>(seen)).data
    expect(await deposits(`?txHash=${txHash}`)).toEqual([
      expect.objectContaining({
        status: 'pending',
        currency: 'USDT',
        amount: '40.000000',
        netAmount: '39.800000',
      }),
    ])
    expect((await pay(100, txHash)).status).toBeLessThan(300)
    expect(await deposits(`?txHash=${txHash}`)).toEqual([expect.objectContaining({ status: 'completed' })])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('sandbox: an NGN transfer into the virtual account becomes a completed deposit', async () => {
    const accountNumber = account.ngnVirtualAccounts[0]?.accountNumber ?? ''
    const res = await h.request('/api/v1/sandbox/ngn-transfers', {
      method: 'POST',
      json: { accountNumber, amount: '2500.50', reference: 'NIP-SANDBOX-1' },
    })
    expect(res.status).toBeLessThan(300)
    const fiat = await deposits(`?type=fiat&depositAccountId=${account.id}`)
    expect(fiat).toEqual([
      expect.objectContaining({
        status: 'completed',
        currency: 'NGN',
        amount: '2500.50',
        fee: '12.50',
        netAmount: '2488.00',
        fiat: expect.objectContaining({ reference: 'NIP-SANDBOX-1', method: 'bank_transfer' }),
      }),
    ])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})
