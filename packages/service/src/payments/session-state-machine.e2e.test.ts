import { randomBytes } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import { inTransaction } from '../db/in-transaction.js'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import { postTransaction } from '../ledger/post-transaction.js'
import type { IncomingTransfer } from '../rails/types.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails, type FakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { expirePaymentSession } from './expire-payment-session.js'
import { registerSessionHandlers } from './register-session-handlers.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const usdc = (whole: number) => BigInt(Math.round(whole * 1_000_000))
// 100 USD session on base USDC, merchant pays: 1.000000 processing + 0.019501 network fee.
const fees = 1_019_501n

describeEachDatabase('payment session state machine', (getDb) => {
  let h: Harness
  let rails: FakeSessionRails
  let offsetMs = 0
  let legacyKey: string

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) => {
        rails = createFakeSessionRails(base)
        return rails
      },
    })
    h.deps.clock = { now: () => new Date(Date.now() + offsetMs) }
    registerSessionHandlers(h.deps)
    legacyKey = (await createApiKey(h.deps, { merchantId: h.a.id, environment: 'test', format: 'legacy' }))
      .key
  })

  const open = async (extra: Json = {}, key?: string): Promise<Json> => {
    const json = {
      title: 'Order',
      amount: '100.00',
      currency: 'USD',
      asset: 'USDC',
      chain: 'base',
      customer: { email: 'payer@example.com' },
      ...extra,
    }
    const res = await h.request('/api/v1/payments', { method: 'POST', json, ...(key ? { key } : {}) })
    expect(res.status).toBe(200)
    return ((await res.json()) as Json).data
  }
  const read = async (session: Json, key?: string): Promise<Json> => {
    const url = `/api/v1/payments/reference/${session.reference}?includeTransactions=true`
    return ((await (await h.request(url, key ? { key } : {})).json()) as Json).data
  }
  const transfer = (
    session: Json,
    amount: bigint,
    extra: Partial<IncomingTransfer> = {},
  ): IncomingTransfer => ({
    id: h.deps.ids.create('itr'),
    environment: 'test',
    chain: 'base',
    network: 'eip155:84532',
    asset: 'USDC',
    amount,
    decimals: 6,
    txHash: `0x${randomBytes(32).toString('hex')}`,
    logIndex: 0,
    fromAddress: `0x${'1'.repeat(40)}`,
    toAddress: session.payment.address,
    blockNumber: 1n,
    confirmations: 0,
    status: 'seen',
    address: {
      id: 'addr_x',
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      network: 'eip155:84532',
      address: session.payment.address,
      purpose: 'session',
      ownerId: session.id,
      createdAt: h.deps.clock.now(),
    },
    seenAt: h.deps.clock.now(),
    confirmedAt: null,
    ...extra,
  })
  const deliver = (t: IncomingTransfer) => inTransaction(h.deps.db, (trx) => rails.deliver(trx, t))
  const seenThenConfirmed = async (t: IncomingTransfer) => {
    await deliver(t)
    await deliver({ ...t, status: 'confirmed', confirmations: 1, confirmedAt: h.deps.clock.now() })
  }
  const balance = (code: 'merchant' | 'suspense' | 'platform:fees' = 'merchant') =>
    getAccountBalance(h.deps, {
      environment: 'test',
      code: code === 'merchant' ? merchantAccount(h.a.id) : code,
      currency: 'USDC',
    })
  const events = async (session: Json) => {
    const rows = await h.deps.db
      .selectFrom('events')
      .selectAll()
      .where('merchant_id', '=', h.a.id)
      .orderBy('seq')
      .execute()
    return rows
      .filter((r) => (r.payload as Json).data.session.id === session.id)
      .map((r) => ({ type: r.type, session: (r.payload as Json).data.session }))
  }
  const expire = async (session: Json) => {
    offsetMs += 2 * 3600_000
    await expirePaymentSession(h.deps, { sessionId: session.id })
  }
  const invariantsHold = async () => expect(await checkLedgerInvariants(h.deps)).toEqual([])

  test('default: paid exactly; pending credit when seen, posted and fees taken when confirmed', async () => {
    const session = await open()
    const before = await balance()
    const t = transfer(session, usdc(100))
    await Promise.all([deliver(t), deliver(t), deliver(t)])
    let s = await read(session)
    expect(s).toMatchObject({
      state: 'open',
      payment: { status: 'confirming', amountReceived: '100.000000' },
    })
    expect(s.transactions).toMatchObject([
      { status: 'pending', txHash: t.txHash, amount: '100.000000', amlCheck: 'passed', confirmations: '0' },
    ])
    expect((await balance()).pending - before.pending).toBe(usdc(100))
    const confirmed = {
      ...t,
      status: 'confirmed' as const,
      confirmations: 1,
      confirmedAt: h.deps.clock.now(),
    }
    await Promise.all([deliver(confirmed), deliver(confirmed)])
    await deliver(confirmed)
    s = await read(session)
    expect(s).toMatchObject({
      state: 'closed',
      amountPaid: '100.00',
      completedAt: expect.any(String),
      payment: { status: 'completed', txHash: t.txHash, overpaidAmount: '0.000000' },
      settlements: { gross: { amount: '100.000000' }, net: { amount: '98.980499' } },
      transactions: [
        { status: 'confirmed', confirmations: '1', explorerUrl: expect.stringContaining(t.txHash) },
      ],
    })
    const after = await balance()
    expect(after.pending).toBe(before.pending)
    expect(after.available - before.available).toBe(usdc(100) - fees)
    const list = await h.request(`/api/v1/balance/transactions?txHash=${t.txHash}`)
    expect(((await list.json()) as Json).data).toMatchObject([
      { source: 'payment', direction: 'credit', status: 'completed', amount: '100.000000' },
    ])
    const log = await events(session)
    expect(log.map((e) => e.type)).toEqual(['payment.completed'])
    expect(log[0]?.session).toMatchObject({ state: 'closed', payment: { amountReceived: '100.000000' } })
    await invariantsHold()
  })

  test('behavior: partially then fully; payment.partial while open, then payment.completed', async () => {
    const session = await open()
    const before = await balance()
    await seenThenConfirmed(transfer(session, usdc(40)))
    const mid = await read(session)
    expect(mid).toMatchObject({ state: 'open', amountPaid: '40.00', payment: { status: 'partial' } })
    // The fees owed on the 40 are held (a pending debit), so the merchant cannot spend them before close.
    expect((await balance()).available - before.available).toBe(usdc(40) - fees)
    await seenThenConfirmed(transfer(session, usdc(60), { logIndex: 3 }))
    expect(await read(session)).toMatchObject({
      state: 'closed',
      payment: { status: 'completed', amountReceived: '100.000000' },
    })
    expect((await balance()).available - before.available).toBe(usdc(100) - fees)
    expect((await events(session)).map((e) => e.type)).toEqual(['payment.partial', 'payment.completed'])
    await invariantsHold()
  })

  test('behavior: underpaid at expiry closes underpaid; the merchant keeps what arrived minus fees', async () => {
    const session = await open()
    const before = await balance()
    await seenThenConfirmed(transfer(session, usdc(40)))
    await expire(session)
    await expire(session)
    expect(await read(session)).toMatchObject({
      state: 'closed',
      payment: { status: 'underpaid' },
      completedAt: null,
    })
    expect((await balance()).available - before.available).toBe(usdc(40) - fees)
    expect((await events(session)).map((e) => e.type)).toEqual(['payment.partial', 'payment.underpaid'])
    await invariantsHold()
  })

  test('behavior: underpayment accepted completes at expiry; legacy keys see session.* and status', async () => {
    const session = await open({ isUnderpaymentAccepted: true }, legacyKey)
    await seenThenConfirmed(transfer(session, usdc(40)))
    await expire(session)
    expect(await read(session, legacyKey)).toMatchObject({ status: 'completed', amount: { paid: '40.00' } })
    const log = await events(session)
    expect(log.map((e) => e.type)).toEqual(['session.partial', 'session.completed'])
    expect(log[1]?.session).toMatchObject({ status: 'completed', amount: { value: '100.00' } })
    expect(log[1]?.session.state).toBeUndefined()
    const underpaid = await open({}, legacyKey)
    await seenThenConfirmed(transfer(underpaid, usdc(10)))
    await expire(underpaid)
    expect((await read(underpaid, legacyKey)).status).toBe('partial')
    expect((await events(underpaid)).map((e) => e.type)).toEqual(['session.partial', 'session.partial'])
    await invariantsHold()
  })

  test('behavior: overpaid completes and records the excess', async () => {
    const session = await open()
    const before = await balance()
    await seenThenConfirmed(transfer(session, usdc(150)))
    expect(await read(session)).toMatchObject({
      payment: { status: 'completed', amountReceived: '150.000000', overpaidAmount: '50.000000' },
      amountPaid: '150.00',
      settlements: { gross: { amount: '150.000000' }, net: { amount: '148.980499' } },
    })
    expect((await balance()).available - before.available).toBe(usdc(150) - fees)
    expect((await events(session)).map((e) => e.type)).toEqual(['payment.completed'])
  })

  test('behavior: funds after expiry go to suspense and raise payment.received_after_expiry', async () => {
    const session = await open()
    const before = await balance()
    const suspense = await balance('suspense')
    await expire(session)
    expect(await read(session)).toMatchObject({ state: 'closed', payment: { status: 'expired' } })
    const late = transfer(session, usdc(100))
    await seenThenConfirmed(late)
    await deliver({ ...late, status: 'confirmed', confirmations: 2 })
    const s = await read(session)
    expect(s.payment).toMatchObject({ status: 'expired', amountReceived: '0.000000' })
    expect(s.transactions).toMatchObject([
      { status: 'confirmed', failureReason: expect.stringContaining('suspense') },
    ])
    expect((await balance()).available).toBe(before.available)
    expect((await balance('suspense')).available - suspense.available).toBe(usdc(100))
    expect((await events(session)).map((e) => e.type)).toEqual([
      'payment.expired',
      'payment.received_after_expiry',
    ])
    await invariantsHold()
  })

  test('behavior: a reorg voids a pending credit and reverses a posted one; the session waits again', async () => {
    const session = await open()
    const before = await balance()
    const first = transfer(session, usdc(100))
    await deliver(first)
    await deliver({ ...first, status: 'reverted' })
    await deliver({ ...first, status: 'reverted' })
    expect(await read(session)).toMatchObject({
      state: 'open',
      payment: { status: 'pending', amountReceived: '0.000000' },
    })
    expect(await balance()).toEqual(before)
    const second = transfer(session, usdc(30))
    await seenThenConfirmed(second)
    expect((await balance()).available - before.available).toBe(usdc(30) - fees)
    await deliver({ ...second, status: 'reverted' })
    const s = await read(session)
    expect(s.payment.status).toBe('pending')
    expect(s.transactions.map((t: Json) => t.status)).toEqual(['reverted', 'reverted'])
    expect(await balance()).toEqual(before)
    expect((await events(session)).map((e) => e.type)).toEqual(['payment.partial'])
    await invariantsHold()
  })

  test('behavior: a transfer still confirming at expiry keeps the session open until it confirms', async () => {
    const session = await open()
    const t = transfer(session, usdc(100))
    await deliver(t)
    await expire(session)
    expect((await read(session)).state).toBe('open')
    await deliver({ ...t, status: 'confirmed', confirmations: 1 })
    expect(await read(session)).toMatchObject({ state: 'closed', payment: { status: 'completed' } })
  })

  test('behavior: a sender that fails screening fails the session and its funds wait in suspense', async () => {
    const session = await open()
    const before = await balance()
    await seenThenConfirmed(transfer(session, usdc(100), { fromAddress: `0x${'0'.repeat(36)}dEaD` }))
    const s = await read(session)
    expect(s).toMatchObject({ state: 'closed', payment: { status: 'failed' } })
    expect(s.transactions).toMatchObject([
      { amlCheck: 'failed', failureReason: expect.stringContaining('AML') },
    ])
    expect(await balance()).toEqual(before)
    expect((await events(session)).map((e) => e.type)).toEqual(['payment.failed'])
    await invariantsHold()
  })

  test('behavior: the merchant spends a partial payment before close; the held fees are still taken', async () => {
    const spendAll = async (key: string) => {
      const { available } = await balance()
      await postTransaction(h.deps, {
        environment: 'test',
        idempotencyKey: key,
        legs: [{ debit: merchantAccount(h.a.id), credit: 'suspense', amount: available, currency: 'USDC' }],
        source: 'adjustment',
      })
    }
    const feesBefore = await balance('platform:fees')
    const session = await open()
    await seenThenConfirmed(transfer(session, usdc(40)))
    await spendAll(`spend-${session.id}`)
    const overdraft = postTransaction(h.deps, {
      environment: 'test',
      idempotencyKey: `overdraft-${session.id}`,
      legs: [{ debit: merchantAccount(h.a.id), credit: 'suspense', amount: 1n, currency: 'USDC' }],
      source: 'adjustment',
    })
    await expect(overdraft).rejects.toMatchObject({ code: 'insufficient_balance' })
    await seenThenConfirmed(transfer(session, usdc(60), { logIndex: 5 }))
    expect(await read(session)).toMatchObject({ state: 'closed', payment: { status: 'completed' } })
    expect((await balance()).available).toBe(usdc(60))
    expect((await balance('platform:fees')).available - feesBefore.available).toBe(fees)

    // Spent, then closed underpaid at expiry: the hold is what the close takes.
    const underpaid = await open()
    await seenThenConfirmed(transfer(underpaid, usdc(10)))
    await spendAll(`spend-${underpaid.id}`)
    await expire(underpaid)
    expect(await read(underpaid)).toMatchObject({ state: 'closed', payment: { status: 'underpaid' } })
    expect((await balance()).available).toBe(0n)
    expect((await balance('platform:fees')).available - feesBefore.available).toBe(2n * fees)
    const rows = await h.request(`/api/v1/balance/transactions?source=fee`)
    const feeRows = ((await rows.json()) as Json).data.filter(
      (r: Json) => r.reference === underpaid.reference,
    )
    expect(feeRows).toMatchObject([{ direction: 'debit', status: 'completed', amount: '1.019501' }])
    await invariantsHold()
  })

  test('behavior: a session that fails after a partial payment releases its fee hold', async () => {
    const session = await open()
    const before = await balance()
    await seenThenConfirmed(transfer(session, usdc(40)))
    await seenThenConfirmed(
      transfer(session, usdc(60), { logIndex: 7, fromAddress: `0x${'0'.repeat(36)}dEaD` }),
    )
    expect(await read(session)).toMatchObject({ state: 'closed', payment: { status: 'failed' } })
    expect((await balance()).available - before.available).toBe(usdc(40))
    await invariantsHold()
  })
})
