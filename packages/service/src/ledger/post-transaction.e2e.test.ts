import { isAppError } from '@tollgate/core'
import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../db/in-transaction.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants, fundMerchant } from '../testing/ledger-fixtures.js'
import { getBalanceTransaction, listBalanceTransactions } from './balance-transactions.js'
import { custodyAccount, merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getAccountBalance, getBalances } from './get-balances.js'
import { ensureLedgerAccounts } from './lock-accounts.js'
import { postTransaction } from './post-transaction.js'

type Deps = ReturnType<typeof createLedgerTestDeps>

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isAppError(error) ? error.code : error).toBe(code)
}

describeEachDatabase('postTransaction', (getDb) => {
  let deps: Deps
  let a: string
  let b: string
  beforeAll(async () => {
    deps = createLedgerTestDeps(getDb())
    ;[a = '', b = ''] = await createTestMerchants(deps, 2)
    await fundMerchant(deps, { merchantId: a, amount: 1_000_000n })
  })

  const usdt = async (merchantId: string) =>
    (await getBalances(deps, { merchantId, environment: 'test' })).find((x) => x.currency === 'USDT')

  test('default: a single-phase transfer moves posted counters and records both merchants', async () => {
    const posted = await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'transfer-1',
      legs: [{ debit: merchantAccount(a), credit: merchantAccount(b), amount: 250_000n, currency: 'USDT' }],
      source: 'adjustment',
      reference: 'ref-1',
    })
    expect(posted).toMatchObject({ replayed: false, source: 'adjustment', reference: 'ref-1' })
    expect(posted.transfers).toEqual([
      expect.objectContaining({ phase: 'single', amount: 250_000n, currency: 'USDT', pendingId: null }),
    ])
    expect(await usdt(a)).toEqual({ currency: 'USDT', available: 750_000n, pending: 0n, total: 750_000n })
    expect(await usdt(b)).toEqual({ currency: 'USDT', available: 250_000n, pending: 0n, total: 250_000n })

    const [outgoing] = (
      await listBalanceTransactions(deps, { merchantId: a, environment: 'test', page: 1, size: 1 })
    ).items
    expect(outgoing).toMatchObject({
      direction: 'debit',
      status: 'completed',
      amount: 250_000n,
      reference: 'ref-1',
      balanceBefore: { available: 1_000_000n, pending: 0n, total: 1_000_000n },
      balanceAfter: { available: 750_000n, pending: 0n, total: 750_000n },
    })
    const incoming = await listBalanceTransactions(deps, {
      merchantId: b,
      environment: 'test',
      page: 1,
      size: 10,
    })
    expect(incoming.items.map((t) => [t.direction, t.amount])).toEqual([['credit', 250_000n]])
    // Each merchant reads only its own balance transactions.
    expect(
      await getBalanceTransaction(deps, { merchantId: b, environment: 'test', id: outgoing?.id ?? '' }),
    ).toBe(undefined)
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: same idempotency key and input replays; other input is idempotency_key_reused', async () => {
    const input = {
      environment: 'test' as const,
      idempotencyKey: 'transfer-2',
      legs: [
        { debit: merchantAccount(a), credit: merchantAccount(b), amount: 1n, currency: 'USDT' as const },
      ],
      source: 'adjustment' as const,
    }
    const first = await postTransaction(deps, input)
    const again = await postTransaction(deps, input)
    expect(again).toMatchObject({ id: first.id, replayed: true })
    expect(again.transfers.map((t) => t.id)).toEqual(first.transfers.map((t) => t.id))
    await expectCode(
      postTransaction(deps, { ...input, legs: [{ ...input.legs[0], amount: 2n }] as typeof input.legs }),
      'idempotency_key_reused',
    )
    // The key is per environment.
    const live = await postTransaction(deps, {
      ...input,
      environment: 'live',
      legs: [
        { debit: custodyAccount('base', 'USDT'), credit: merchantAccount(a), amount: 1n, currency: 'USDT' },
      ],
      source: 'deposit',
    })
    expect(live.replayed).toBe(false)
  })

  test('behavior: a leg that would overdraw rolls back every leg (insufficient_balance)', async () => {
    const before = await usdt(a)
    const count = await countTransfers(deps)
    await expectCode(
      postTransaction(deps, {
        environment: 'test',
        idempotencyKey: 'overdraw',
        legs: [
          { debit: 'sandbox:funding', credit: merchantAccount(a), amount: 5n, currency: 'USDT' },
          { debit: merchantAccount(a), credit: 'platform:fees', amount: 10n ** 12n, currency: 'USDT' },
        ],
        source: 'fee',
      }),
      'insufficient_balance',
    )
    expect(await usdt(a)).toEqual(before)
    expect(await countTransfers(deps)).toBe(count)
    // The key was not consumed: the corrected request goes through.
    const fixed = await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'overdraw',
      legs: [{ debit: merchantAccount(a), credit: 'platform:fees', amount: 5n, currency: 'USDT' }],
      source: 'fee',
    })
    expect(fixed.replayed).toBe(false)
  })

  test('behavior: a multi-leg swap moves two currencies atomically through platform:fx', async () => {
    await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'fx-liquidity',
      legs: [{ debit: 'sandbox:funding', credit: 'platform:fx', amount: 10n ** 9n, currency: 'NGN' }],
      source: 'adjustment',
    })
    const swap = await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'swap-1',
      legs: [
        { debit: merchantAccount(a), credit: 'platform:fx', amount: 100_000n, currency: 'USDT' },
        { debit: 'platform:fx', credit: merchantAccount(a), amount: 15_000n, currency: 'NGN' },
        { debit: merchantAccount(a), credit: 'platform:fees', amount: 1_000n, currency: 'USDT' },
      ],
      source: 'swap',
      sourceId: 'swp_1',
    })
    expect(swap.transfers.map((t) => [t.leg, t.currency])).toEqual([
      [0, 'USDT'],
      [1, 'NGN'],
      [2, 'USDT'],
    ])
    const ngn = (await getBalances(deps, { merchantId: a, environment: 'test' })).find(
      (x) => x.currency === 'NGN',
    )
    expect(ngn?.available).toBe(15_000n)
    const fees = await getAccountBalance(deps, {
      environment: 'test',
      code: 'platform:fees',
      currency: 'USDT',
    })
    expect(fees.available).toBeGreaterThanOrEqual(1_000n)
    const swapRows = await listBalanceTransactions(deps, {
      merchantId: a,
      environment: 'test',
      source: 'swap',
      page: 1,
      size: 10,
    })
    expect(swapRows.items.map((t) => [t.direction, t.currency, t.amount, t.sourceId])).toEqual([
      ['debit', 'USDT', 1_000n, 'swp_1'],
      ['credit', 'NGN', 15_000n, 'swp_1'],
      ['debit', 'USDT', 100_000n, 'swp_1'],
    ])
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: bad legs are validation errors and write nothing', async () => {
    const count = await countTransfers(deps)
    const leg = {
      debit: merchantAccount(a),
      credit: merchantAccount(b),
      amount: 1n,
      currency: 'USDT' as const,
    }
    const cases = [
      { legs: [] },
      { legs: [{ ...leg, amount: 0n }] },
      { legs: [{ ...leg, amount: -5n }] },
      { legs: [{ ...leg, credit: leg.debit }] },
      { legs: [{ ...leg, currency: 'XYZ' as 'USDT' }] },
      { legs: [{ ...leg, debit: 'nonsense' as 'suspense' }] },
      { legs: [leg], expiresAt: new Date() },
      { legs: [leg], idempotencyKey: '' },
    ]
    for (const overrides of cases) {
      await expectCode(
        postTransaction(deps, {
          environment: 'test',
          idempotencyKey: 'bad',
          source: 'adjustment',
          ...overrides,
        }),
        'validation_error',
      )
    }
    await expectCode(
      postTransaction(deps, {
        environment: 'live',
        idempotencyKey: 'live-faucet',
        legs: [{ debit: 'sandbox:funding', credit: merchantAccount(a), amount: 1n, currency: 'USDT' }],
        source: 'sandbox_funding',
      }),
      'forbidden',
    )
    expect(await countTransfers(deps)).toBe(count)
  })

  test('behavior: transfers are immutable in the database', async () => {
    await expect(sql`update ledger_transfers set amount = amount + 1`.execute(getDb())).rejects.toThrow(
      /immutable/,
    )
    await expect(sql`delete from ledger_transfers`.execute(getDb())).rejects.toThrow(/immutable/)
  })

  test('behavior: the CHECK constraint refuses a negative merchant balance even from raw SQL', async () => {
    await expect(
      sql`update ledger_accounts set debits_posted = credits_posted + 1 where merchant_id = ${a}`.execute(
        getDb(),
      ),
    ).rejects.toThrow(/ledger_accounts_debits_within_credits/)
  })

  test('behavior: joins the caller transaction, and rolls back with it', async () => {
    const before = await usdt(b)
    await expect(
      getDb()
        .transaction()
        .execute(async (trx) => {
          await postTransaction(
            { ...deps, db: trx },
            {
              environment: 'test',
              idempotencyKey: 'in-caller-trx',
              legs: [{ debit: 'sandbox:funding', credit: merchantAccount(b), amount: 7n, currency: 'USDT' }],
              source: 'sandbox_funding',
            },
          )
          throw new Error('the caller state change failed')
        }),
    ).rejects.toThrow('the caller state change failed')
    expect(await usdt(b)).toEqual(before)
    // Accounts prepared beforehand, then a posting that commits with the caller's own write.
    await ensureLedgerAccounts(deps, {
      environment: 'test',
      refs: [{ code: 'suspense', currency: 'NGN' }],
    })
    await getDb()
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('merchants')
          .values({ id: 'mer_callertrx', name: 'caller', created_at: new Date() })
          .execute()
        await postTransaction(
          { ...deps, db: trx },
          {
            environment: 'test',
            idempotencyKey: 'in-caller-trx-2',
            legs: [{ debit: 'sandbox:funding', credit: 'suspense', amount: 9n, currency: 'NGN' }],
            source: 'adjustment',
          },
        )
      })
    const suspense = await getAccountBalance(deps, { environment: 'test', code: 'suspense', currency: 'NGN' })
    expect(suspense.available).toBe(9n)
  })

  test('behavior: transactionId names the transaction, inside a caller transaction too; a replay keeps the first id', async () => {
    const legs = [
      { debit: merchantAccount(a), credit: merchantAccount(b), amount: 1_000n, currency: 'USDT' as const },
    ]
    const posted = await inTransaction(deps.db, (trx) =>
      postTransaction(
        { ...deps, db: trx },
        {
          environment: 'test',
          idempotencyKey: 'chosen-id-1',
          transactionId: 'ltx_chosen1',
          legs,
          source: 'adjustment',
        },
      ),
    )
    expect(posted).toMatchObject({ id: 'ltx_chosen1', replayed: false })
    const again = await inTransaction(deps.db, (trx) =>
      postTransaction(
        { ...deps, db: trx },
        {
          environment: 'test',
          idempotencyKey: 'chosen-id-1',
          transactionId: 'ltx_chosen2',
          legs,
          source: 'adjustment',
        },
      ),
    )
    expect(again).toMatchObject({ id: 'ltx_chosen1', replayed: true })
    const own = await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'chosen-id-2',
      transactionId: 'ltx_chosen3',
      legs,
      source: 'adjustment',
    })
    expect(own.id).toBe('ltx_chosen3')
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })
})

async function countTransfers(deps: Deps): Promise<number> {
  const row = await deps.db
    .selectFrom('ledger_transfers')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
