import { isAppError } from '@tollgate/core'
import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants } from '../testing/ledger-fixtures.js'
import { custodyAccount, merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getBalances } from './get-balances.js'
import type { LedgerLeg } from './ledger-types.js'
import { ensureLedgerAccounts } from './lock-accounts.js'
import { postTransaction } from './post-transaction.js'
import { isMissingLedgerAccount, toPostingCtes } from './posting-ctes.js'

type Deps = ReturnType<typeof createLedgerTestDeps>

describeEachDatabase('toPostingCtes', (getDb) => {
  let deps: Deps
  let a: string
  let b: string
  beforeAll(async () => {
    deps = createLedgerTestDeps(getDb())
    ;[a = '', b = ''] = await createTestMerchants(deps, 2)
  })

  const custody = custodyAccount('base', 'USDC')
  const legsFor = (merchantId: string): LedgerLeg[] => [
    { debit: custody, credit: merchantAccount(merchantId), amount: 100n, currency: 'USDC' },
    { debit: custody, credit: merchantAccount(merchantId), amount: 50n, currency: 'USDC' },
    { debit: custody, credit: 'platform:fees', amount: 5n, currency: 'USDC' },
  ]
  // The gate CTE yields one row when `open`, none otherwise; the statement answers what it posted.
  const post = async (input: { key: string; legs: LedgerLeg[]; open?: boolean }) => {
    const { ctes, transactionId } = toPostingCtes(deps, {
      environment: 'test',
      idempotencyKey: input.key,
      legs: input.legs,
      source: 'x402',
      reference: input.key,
      gate: 'gate',
    })
    await sql`with gate as (select 1 as one where ${input.open ?? true}), ${ctes} select 1 as done`.execute(
      deps.db,
    )
    return transactionId
  }
  const available = async (merchantId: string) =>
    (await getBalances(deps, { merchantId, environment: 'test' })).find((x) => x.currency === 'USDC')
      ?.available
  const credits = (merchantId: string) =>
    deps.db
      .selectFrom('balance_transactions')
      .select(['amount', 'before_available', 'after_available'])
      .where('merchant_id', '=', merchantId)
      .orderBy('seq')
      .execute()

  test('behavior: a missing account fails the whole statement, nothing written; with the accounts it posts', async () => {
    const error = await post({ key: 'ctes-1', legs: legsFor(a) }).catch((e: unknown) => e)
    expect(isMissingLedgerAccount(error)).toBe(true)
    expect(await deps.db.selectFrom('ledger_transactions').select('id').execute()).toEqual([])
    await ensureLedgerAccounts(deps, {
      environment: 'test',
      refs: legsFor(a).flatMap((l) => [
        { code: l.debit, currency: l.currency },
        { code: l.credit, currency: l.currency },
      ]),
    })
    const id = await post({ key: 'ctes-1', legs: legsFor(a) })
    expect(
      await deps.db.selectFrom('ledger_transfers').select('leg').where('transaction_id', '=', id).execute(),
    ).toHaveLength(3)
    // Two legs to one account: the second starts where the first ended.
    expect(
      (await credits(a)).map((c) => [c.amount, c.before_available, c.after_available].map(String)),
    ).toEqual([
      ['100', '0', '100'],
      ['50', '100', '150'],
    ])
    expect(await available(a)).toBe(150n)
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: a claimed key or a gate without a row posts nothing', async () => {
    await post({ key: 'ctes-1', legs: legsFor(a) })
    await post({ key: 'ctes-2', legs: legsFor(a), open: false })
    expect(await credits(a)).toHaveLength(2)
    expect(await available(a)).toBe(150n)
    expect(await checkLedgerInvariants(deps)).toEqual([])
  })

  test('behavior: same request hash as postTransaction, so a step-by-step replay of the key is a replay', async () => {
    await ensureLedgerAccounts(deps, {
      environment: 'test',
      refs: [{ code: merchantAccount(b), currency: 'USDC' }],
    })
    await post({ key: 'ctes-3', legs: legsFor(b) })
    const replay = await postTransaction(deps, {
      environment: 'test',
      idempotencyKey: 'ctes-3',
      legs: legsFor(b),
      source: 'x402',
      reference: 'ctes-3',
    })
    expect(replay.replayed).toBe(true)
    expect(await available(b)).toBe(150n)
  })

  test('edge: a leg debiting a merchant account is refused before any SQL', () => {
    const error = (() => {
      try {
        toPostingCtes(deps, {
          environment: 'test',
          idempotencyKey: 'ctes-4',
          legs: [{ debit: merchantAccount(a), credit: custody, amount: 1n, currency: 'USDC' }],
          source: 'x402',
          gate: 'gate',
        })
        return undefined
      } catch (e) {
        return e
      }
    })()
    expect(isAppError(error) ? error.code : error).toBe('internal_error')
  })
})
