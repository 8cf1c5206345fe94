import { isAppError } from '@tollgate/core'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants, fundMerchant } from '../testing/ledger-fixtures.js'
import { listBalanceTransactions } from './balance-transactions.js'
import { custodyAccount, merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getBalances } from './get-balances.js'
import { createPendingTransfer } from './post-transaction.js'
import {
  expirePendingTransfers,
  postPendingTransaction,
  postPendingTransfer,
  voidPendingTransaction,
  voidPendingTransfer,
} from './resolve-pending.js'

async function errorCode(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  return isAppError(error) ? error.code : error
}

describeEachDatabase('pending transfers', (getDb) => {
  let deps: ReturnType<typeof createLedgerTestDeps>
  let m: string
  beforeAll(async () => {
    deps = createLedgerTestDeps(getDb())
    ;[m = ''] = await createTestMerchants(deps, 1)
    await fundMerchant(deps, { merchantId: m, amount: 1_000n })
  })

  const balance = async () =>
    (await getBalances(deps, { merchantId: m, environment: 'test' })).find((b) => b.currency === 'USDT')
  const reserve = (key: string, amount: bigint, expiresAt?: Date) =>
    createPendingTransfer(deps, {
      environment: 'test',
      idempotencyKey: key,
      legs: [{ debit: merchantAccount(m), credit: 'bank:sandbox', amount, currency: 'USDT' }],
      source: 'payout',
      sourceId: `po_${key}`,
      ...(expiresAt ? { expiresAt } : {}),
    })

  test('default: a pending debit reserves (available drops), post makes it final', async () => {
    const pending = await reserve('payout-1', 300n)
    expect(await balance()).toMatchObject({ available: 700n, pending: 0n, total: 700n })
    const [row] = (
      await listBalanceTransactions(deps, { merchantId: m, environment: 'test', page: 1, size: 1 })
    ).items
    expect(row).toMatchObject({ status: 'pending', direction: 'debit', sourceId: 'po_payout-1' })
    const transferId = pending.transfers[0]?.id ?? ''
    const posted = await postPendingTransfer(deps, { environment: 'test', transferId })
    expect(posted.transfers).toEqual([
      expect.objectContaining({ phase: 'post', pendingId: transferId, amount: 300n }),
    ])
    expect(await balance()).toMatchObject({ available: 700n, total: 700n })
    const [after] = (
      await listBalanceTransactions(deps, { merchantId: m, environment: 'test', page: 1, size: 1 })
    ).items
    expect(after).toMatchObject({ id: row?.id, status: 'completed' })
    // Resolving twice: the same resolution replays; the other is refused.
    expect((await postPendingTransfer(deps, { environment: 'test', transferId })).replayed).toBe(true)
    expect(await errorCode(voidPendingTransfer(deps, { environment: 'test', transferId }))).toBe(
      'pending_transfer_already_resolved',
    )
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: void releases the reservation; a voided transfer cannot be posted', async () => {
    const pending = await reserve('payout-2', 200n)
    expect((await balance())?.available).toBe(500n)
    const transferId = pending.transfers[0]?.id ?? ''
    await voidPendingTransfer(deps, { environment: 'test', transferId })
    expect((await balance())?.available).toBe(700n)
    expect(await errorCode(postPendingTransfer(deps, { environment: 'test', transferId }))).toBe(
      'pending_transfer_already_resolved',
    )
    const voided = await listBalanceTransactions(deps, {
      merchantId: m,
      environment: 'test',
      status: 'voided',
      page: 1,
      size: 10,
    })
    expect(voided.items.map((t) => t.sourceId)).toEqual(['po_payout-2'])
  })

  test('behavior: a reservation counts against available, so a second one cannot overdraw', async () => {
    const first = await reserve('payout-3', 600n)
    expect(await errorCode(reserve('payout-4', 200n))).toBe('insufficient_balance')
    await voidPendingTransfer(deps, { environment: 'test', transferId: first.transfers[0]?.id ?? '' })
  })

  test('behavior: a pending credit shows as pending until posted, and a void removes it', async () => {
    const deposit = (key: string) =>
      createPendingTransfer(deps, {
        environment: 'test',
        idempotencyKey: key,
        legs: [
          {
            debit: custodyAccount('base', 'USDT'),
            credit: merchantAccount(m),
            amount: 50n,
            currency: 'USDT',
          },
        ],
        source: 'deposit',
        txHash: `0x${key}`,
      })
    const seen = await deposit('dep-1')
    expect(await balance()).toMatchObject({ available: 700n, pending: 50n, total: 750n })
    await postPendingTransaction(deps, { environment: 'test', transactionId: seen.id })
    expect(await balance()).toMatchObject({ available: 750n, pending: 0n, total: 750n })
    const reorged = await deposit('dep-2')
    await voidPendingTransaction(deps, { environment: 'test', transactionId: reorged.id })
    expect(await balance()).toMatchObject({ available: 750n, pending: 0n, total: 750n })
    const byHash = await listBalanceTransactions(deps, {
      merchantId: m,
      environment: 'test',
      txHash: '0xdep-1',
      page: 1,
      size: 10,
    })
    expect(byHash.items.map((t) => [t.status, t.direction])).toEqual([['completed', 'credit']])
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: multi-leg pending transactions resolve all legs at once', async () => {
    const payout = await createPendingTransfer(deps, {
      environment: 'test',
      idempotencyKey: 'payout-fee',
      legs: [
        { debit: merchantAccount(m), credit: 'bank:sandbox', amount: 100n, currency: 'USDT' },
        { debit: merchantAccount(m), credit: 'platform:fees', amount: 5n, currency: 'USDT' },
      ],
      source: 'payout',
    })
    expect((await balance())?.available).toBe(645n)
    const posted = await postPendingTransaction(deps, { environment: 'test', transactionId: payout.id })
    expect(posted.transfers.map((t) => [t.phase, t.amount])).toEqual([
      ['post', 100n],
      ['post', 5n],
    ])
    expect(
      await errorCode(
        voidPendingTransfer(deps, { environment: 'test', transferId: payout.transfers[1]?.id ?? '' }),
      ),
    ).toBe('pending_transfer_already_resolved')
    expect((await balance())?.available).toBe(645n)
  })

  test('behavior: expired transfers cannot be posted and are voided by expirePendingTransfers', async () => {
    const expiresAt = new Date(deps.clock.now().getTime() + 60_000)
    const pending = await reserve('payout-exp', 45n, expiresAt)
    const transferId = pending.transfers[0]?.id ?? ''
    expect(await expirePendingTransfers(deps)).toBe(0)
    deps.clock.advance(60_000)
    expect(await errorCode(postPendingTransfer(deps, { environment: 'test', transferId }))).toBe(
      'pending_transfer_expired',
    )
    expect((await balance())?.available).toBe(600n)
    expect(await expirePendingTransfers(deps)).toBe(1)
    expect(await expirePendingTransfers(deps)).toBe(0)
    expect((await balance())?.available).toBe(645n)
    expect(await errorCode(voidPendingTransfer(deps, { environment: 'test', transferId }))).toBe(
      'pending_transfer_already_resolved',
    )
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: unknown, single-phase or other-environment transfers are not_found', async () => {
    expect(await errorCode(postPendingTransfer(deps, { environment: 'test', transferId: 'tr_nope' }))).toBe(
      'not_found',
    )
    const pending = await reserve('payout-env', 1n)
    const transferId = pending.transfers[0]?.id ?? ''
    expect(await errorCode(postPendingTransfer(deps, { environment: 'live', transferId }))).toBe('not_found')
    const posted = await postPendingTransfer(deps, { environment: 'test', transferId })
    expect(
      await errorCode(
        postPendingTransfer(deps, { environment: 'test', transferId: posted.transfers[0]?.id ?? '' }),
      ),
    ).toBe('not_found')
  })
})
