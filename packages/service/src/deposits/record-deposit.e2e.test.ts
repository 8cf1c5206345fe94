import { beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../db/in-transaction.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import type { InboundFiatTransfer, IncomingTransfer } from '../rails/types.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { setTestFxRates } from '../testing/fx-fixtures.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { recordCryptoDeposit } from './record-crypto-deposit.js'
import { recordFiatDeposit } from './record-fiat-deposit.js'

type Deposit = {
  id: string
  status: string
  currency: string
  amount: string
  fee: string
  netAmount: string
  conversion: Record<string, string> | null
  balanceReference: string | null
  customer: { id: string } | null
  crypto: Record<string, unknown> | null
  fiat: Record<string, unknown> | null
  failureReason: string | null
}
type Account = {
  id: string
  staticDepositAddresses: { address: string }[]
  ngnVirtualAccounts: { accountReference: string }[]
}
const toMinor = (amount: string | undefined) => BigInt((amount ?? '0').replace('.', ''))
type Body<T> = { data: T; meta?: { total: number; size: number }; error?: { code: string } }

// Feeds incoming-transfer reports (what the chain watchers deliver) and inbound NGN transfers (what
// the virtual-account provider delivers) to the recorders inside a transaction, as the rails do.
describeEachDatabase('deposit recording', (getDb) => {
  let h: Harness
  let customerId: string
  let transferSeq = 0
  beforeAll(async () => {
    h = await createHarness(getDb())
    await setTestFxRates(h.deps.rails)
    const customer = await h.request('/api/v1/customers', {
      method: 'POST',
      json: { email: 'ngozi@example.com', firstName: 'Ngozi' },
    })
    customerId = ((await customer.json()) as Body<{ id: string }>).data.id
  })
  const read = async <T>(res: Response) => (await res.json()) as Body<T>
  const createAccount = async (json: Record<string, unknown>, key?: string) =>
    (
      await read<Account>(
        await h.request('/api/v1/deposits/accounts', { method: 'POST', json, ...(key ? { key } : {}) }),
      )
    ).data
  const addAddress = async (accountId: string, chain: string) =>
    (
      await read<Account>(
        await h.request(`/api/v1/deposits/accounts/${accountId}/identities`, {
          method: 'POST',
          json: { type: 'static_deposit_address', chain },
        }),
      )
    ).data
  const transferTo = async (
    accountId: string,
    merchantId: string,
    fields: Partial<IncomingTransfer> & { asset: string; amount: bigint; decimals: number },
  ): Promise<IncomingTransfer> => {
    const chain = fields.chain ?? 'base'
    const address = await h.deps.rails.addresses.allocate(h.deps.db, {
      merchantId,
      environment: 'test',
      chain,
      purpose: 'deposit',
      ownerId: accountId,
    })
    transferSeq += 1
    return {
      id: `itr_${transferSeq}`,
      environment: 'test',
      chain,
      network: address.network,
      txHash: `0x${transferSeq.toString(16).padStart(64, 'a')}`,
      logIndex: 0,
      fromAddress: '0xpayer',
      toAddress: address.address,
      blockNumber: 100n,
      confirmations: 1,
      status: 'seen',
      address,
      seenAt: new Date(),
      confirmedAt: null,
      ...fields,
    }
  }
  const deliver = (transfer: IncomingTransfer, status: IncomingTransfer['status'] = transfer.status) =>
    inTransaction(h.deps.db, (trx) => recordCryptoDeposit(h.deps, trx, { ...transfer, status }))
  const deposits = async (query = '', key?: string) =>
    read<Deposit[]>(await h.request(`/api/v1/deposits${query}`, key ? { key } : {}))
  const balance = async (currency: string) =>
    (
      await read<{ currency: string; available: string; pending: string }[]>(
        await h.request('/api/v1/balance'),
      )
    ).data.find((b) => b.currency === currency)
  const events = async (depositId: string) =>
    (await h.deps.db.selectFrom('events').select(['type', 'payload']).orderBy('seq').execute()).filter(
      (e) => (e.payload as { data: { deposit?: { id: string } } }).data.deposit?.id === depositId,
    )

  test('default rule: USDC credits USDC, pending when seen, posted at the confirmation count, idempotent', async () => {
    const account = await createAccount({ customerId })
    await addAddress(account.id, 'base')
    const transfer = await transferTo(account.id, h.a.id, {
      asset: 'USDC',
      amount: 100_000_000n,
      decimals: 6,
    })
    await deliver(transfer)
    await deliver(transfer)
    const seen = (await deposits(`?txHash=${transfer.txHash}`)).data
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      type: 'crypto',
      status: 'pending',
      currency: 'USDC',
      amount: '100.000000',
      fee: '0.500000',
      netAmount: '99.500000',
      // Spec: `conversion` is a Conversion (not nullable): the identity when nothing converted.
      conversion: {
        fromCurrency: 'USDC',
        toCurrency: 'USDC',
        sourceAmount: '100.000000',
        targetAmount: '100.000000',
        rate: '1',
      },
      depositAccountId: account.id,
      customer: { id: customerId },
      crypto: {
        txHash: transfer.txHash,
        chain: 'base',
        asset: 'USDC',
        amount: '100.000000',
        fromAddress: '0xpayer',
        toAddress: transfer.toAddress,
        amlCheck: 'passed',
        staticDepositAddress: { chain: 'base', address: transfer.toAddress },
      },
      fiat: null,
    })
    expect(await balance('USDC')).toMatchObject({ available: '0.000000', pending: '99.500000' })
    await deliver(transfer, 'confirmed')
    await deliver(transfer, 'confirmed')
    const id = seen[0]?.id ?? ''
    const done = (await read<Deposit>(await h.request(`/api/v1/deposits/${id}`))).data
    expect(done).toMatchObject({
      status: 'completed',
      netAmount: '99.500000',
      completedAt: expect.any(String),
    })
    expect(await balance('USDC')).toMatchObject({ available: '99.500000', pending: '0.000000' })
    const sent = await events(id)
    expect(sent.map((e) => e.type)).toEqual(['deposit.pending', 'deposit.completed'])
    for (const event of sent) {
      expect((event.payload as { data: { deposit: Deposit } }).data.deposit.conversion).toEqual(
        done.conversion,
      )
    }
    expect(done.conversion).toMatchObject({
      rate: '1',
      sourceAmount: '100.000000',
      targetAmount: '100.000000',
    })
    const txs = await read<
      { source: string; sourceId: string; status: string; amount: string; reference: string }[]
    >(await h.request(`/api/v1/balance/transactions?source=deposit&txHash=${transfer.txHash}`))
    expect(txs.data).toEqual([
      expect.objectContaining({ source: 'deposit', sourceId: id, status: 'completed', amount: '99.500000' }),
    ])
    // One meaning for one name: balanceReference is the balance transactions' reference, as on settlements.
    expect(done.balanceReference).toBe(txs.data[0]?.reference)
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('default rule: USDT at 18 decimals credits USDT; ETH converts to USDT', async () => {
    const account = await createAccount({ customerId })
    const usdt = await transferTo(account.id, h.a.id, {
      asset: 'USDT',
      amount: 25n * 10n ** 18n + 123n,
      decimals: 18,
      status: 'confirmed',
    })
    await deliver(usdt)
    const [credited] = (await deposits(`?txHash=${usdt.txHash}`)).data
    expect(credited).toMatchObject({
      status: 'completed',
      currency: 'USDT',
      amount: '25.000000',
      fee: '0.125000',
      conversion: {
        fromCurrency: 'USDT',
        toCurrency: 'USDT',
        sourceAmount: '25.000000',
        targetAmount: '25.000000',
        rate: '1',
      },
    })
    const eth = await transferTo(account.id, h.a.id, {
      asset: 'ETH',
      amount: 10n ** 16n,
      decimals: 18,
      status: 'confirmed',
    })
    await deliver(eth)
    const [converted] = (await deposits(`?txHash=${eth.txHash}`)).data
    expect(converted).toMatchObject({
      status: 'completed',
      currency: 'USDT',
      amount: '30.000000',
      fee: '0.150000',
      netAmount: '29.850000',
      conversion: {
        fromCurrency: 'ETH',
        toCurrency: 'USDT',
        sourceAmount: '0.010000000000000000',
        targetAmount: '30.000000',
        rate: '3000.00000000',
      },
    })
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('chosen currency: a USDC deposit converts through platform:fx; a change applies to new deposits only', async () => {
    const other = await read<{ id: string }>(
      await h.request('/api/v1/customers', { method: 'POST', json: { email: 'emeka@example.com' } }),
    )
    const account = await createAccount({ customerId: other.data.id, settlementCurrency: 'NGN' })
    const before = await transferTo(account.id, h.a.id, { asset: 'USDC', amount: 2_000_000n, decimals: 6 })
    await deliver(before)
    const patched = await h.request(`/api/v1/deposits/accounts/${account.id}`, {
      method: 'PATCH',
      json: { settlementCurrency: 'USDT' },
    })
    expect(patched.status).toBe(200)
    await deliver(before, 'confirmed')
    const [first] = (await deposits(`?txHash=${before.txHash}`)).data
    expect(first).toMatchObject({
      status: 'completed',
      currency: 'NGN',
      amount: '3000.00',
      fee: '15.00',
      netAmount: '2985.00',
      conversion: {
        fromCurrency: 'USDC',
        toCurrency: 'NGN',
        sourceAmount: '2.000000',
        targetAmount: '3000.00',
      },
    })
    const after = await transferTo(account.id, h.a.id, {
      asset: 'USDC',
      amount: 2_000_000n,
      decimals: 6,
      status: 'confirmed',
    })
    await deliver(after)
    const [second] = (await deposits(`?txHash=${after.txHash}`)).data
    expect(second).toMatchObject({
      currency: 'USDT',
      amount: '2.000000',
      conversion: { fromCurrency: 'USDC', toCurrency: 'USDT' },
    })
    const fx = await h.deps.db
      .selectFrom('ledger_accounts')
      .select(['currency', 'credits_posted', 'debits_posted'])
      .where('code', '=', 'platform:fx')
      .where('environment', '=', 'test')
      .execute()
    expect(fx.find((a) => a.currency === 'USDC')?.credits_posted).toBe('4000000')
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('a deposit reverted before its confirmation count is never credited', async () => {
    const account = await createAccount({ customerId })
    const usdcBefore = await balance('USDC')
    const transfer = await transferTo(account.id, h.a.id, { asset: 'USDC', amount: 7_000_000n, decimals: 6 })
    await deliver(transfer)
    // 7 USDC less the 0.5 % fee is pending on top of what was pending before.
    expect(toMinor((await balance('USDC'))?.pending) - toMinor(usdcBefore?.pending)).toBe(6_965_000n)
    await deliver(transfer, 'reverted')
    await deliver(transfer, 'reverted')
    await deliver(transfer, 'confirmed')
    const [reverted] = (await deposits(`?txHash=${transfer.txHash}`)).data
    expect(reverted).toMatchObject({ status: 'failed', failureReason: 'reverted', completedAt: null })
    expect(await balance('USDC')).toEqual(usdcBefore)
    expect((await events(reverted?.id ?? '')).map((e) => e.type)).toEqual([
      'deposit.pending',
      'deposit.failed',
    ])
    const never = await transferTo(account.id, h.a.id, {
      asset: 'USDC',
      amount: 1_000_000n,
      decimals: 6,
      status: 'reverted',
    })
    await deliver(never)
    expect((await deposits(`?txHash=${never.txHash}`)).data).toEqual([])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('a failed AML check holds the funds in suspense and fails the deposit', async () => {
    const account = await createAccount({ customerId })
    const usdcBefore = await balance('USDC')
    const transfer = await transferTo(account.id, h.a.id, {
      asset: 'USDC',
      amount: 5_000_000n,
      decimals: 6,
      fromAddress: '0x00000000000000000000000000000000deadbad0',
    })
    await deliver(transfer)
    await deliver(transfer, 'confirmed')
    const [held] = (await deposits(`?txHash=${transfer.txHash}`)).data
    expect(held).toMatchObject({
      status: 'failed',
      failureReason: 'aml_check_failed',
      fee: '0.000000',
      crypto: { amlCheck: 'failed' },
    })
    expect(await balance('USDC')).toEqual(usdcBefore)
    const suspense = await h.deps.db
      .selectFrom('ledger_accounts')
      .select('credits_posted')
      .where('code', '=', 'suspense')
      .where('currency', '=', 'USDC')
      .executeTakeFirstOrThrow()
    expect(suspense.credits_posted).toBe('5000000')
  })

  test('NGN into a virtual account: a completed fiat deposit on the provider callback, once', async () => {
    const parent = (await read<Account>(await h.request('/api/v1/deposits/accounts/parent'))).data
    const withVa = (
      await read<Account>(
        await h.request(`/api/v1/deposits/accounts/${parent.id}/identities`, {
          method: 'POST',
          json: { type: 'ngn_virtual_account', bvn: '22233344455' },
        }),
      )
    ).data
    const reference = withVa.ngnVirtualAccounts[0]?.accountReference ?? ''
    const inbound: InboundFiatTransfer = {
      id: 'ibt_1',
      environment: 'test',
      accountReference: reference,
      amount: 5_000_000n,
      currency: 'NGN',
      reference: 'NIP-000111',
      payer: { accountName: 'ADA OBI', accountNumber: '0123456789', bankName: 'GTBank', bankCode: '058' },
      receivedAt: new Date(),
    }
    const ngnBefore = await balance('NGN')
    for (let i = 0; i < 2; i++) {
      await inTransaction(h.deps.db, (trx) => recordFiatDeposit(h.deps, trx, inbound))
    }
    const list = await deposits('?type=fiat')
    expect(list.data).toHaveLength(1)
    expect(list.data[0]).toMatchObject({
      status: 'completed',
      currency: 'NGN',
      amount: '50000.00',
      fee: '250.00',
      netAmount: '49750.00',
      customer: null,
      crypto: null,
      fiat: {
        reference: 'NIP-000111',
        method: 'bank_transfer',
        payer: inbound.payer,
        payee: { accountName: 'Merchant A', bankName: 'Wema Bank' },
        ngnVirtualAccount: { accountReference: reference },
      },
    })
    expect(toMinor((await balance('NGN'))?.available) - toMinor(ngnBefore?.available)).toBe(4_975_000n)
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('GET /deposits: filters, default size 20, one deposit, isolation and 401', async () => {
    const all = await deposits()
    expect(all.meta).toMatchObject({ size: 20 })
    const total = all.meta?.total ?? 0
    expect(total).toBeGreaterThanOrEqual(8)
    for (const [query, check] of [
      ['?type=crypto', (d: Deposit) => d.crypto !== null],
      ['?status=failed', (d: Deposit) => d.status === 'failed'],
      ['?currency=NGN', (d: Deposit) => d.currency === 'NGN'],
      ['?chain=base', (d: Deposit) => (d.crypto as { chain?: string } | null)?.chain === 'base'],
      [`?customerId=${customerId}`, (d: Deposit) => d.customer?.id === customerId],
    ] as const) {
      const page = await deposits(query)
      expect(page.data.length, query).toBeGreaterThan(0)
      expect(page.data.every(check), query).toBe(true)
    }
    const first = all.data[0]
    const byAccount = await deposits(
      `?depositAccountId=${(first as unknown as { depositAccountId: string }).depositAccountId}`,
    )
    expect(byAccount.data.map((d) => d.id)).toContain(first?.id)
    expect((await deposits('?size=2&page=2')).data).toHaveLength(2)
    expect((await deposits('?startDate=2999-01-01')).data).toEqual([])
    for (const query of ['?size=101', '?type=card', '?status=done', '?chain=fantom', '?endDate=yesterday']) {
      expect((await h.request(`/api/v1/deposits${query}`)).status, query).toBe(400)
    }
    expect((await h.request(`/api/v1/deposits/${first?.id}`)).status).toBe(200)
    for (const key of [h.b.testKey, h.a.liveKey]) {
      expect((await h.request(`/api/v1/deposits/${first?.id}`, { key })).status).toBe(404)
      expect((await deposits('', key)).data).toEqual([])
    }
    expect((await h.request('/api/v1/deposits', { key: null })).status).toBe(401)
    expect((await h.request(`/api/v1/deposits/${first?.id}`, { key: null })).status).toBe(401)
  })
})
