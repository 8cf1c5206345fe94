import { isAppError } from '@tollgate/core'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants } from '../testing/ledger-fixtures.js'
import { type AccountCounters, availableSql, toAccountBalance, toAccountCounters } from './account-balance.js'
import { type AccountCode, merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import type { LedgerCurrency } from './ledger-currencies.js'
import type { LedgerLeg } from './ledger-types.js'
import { type PostTransactionInput, postTransaction } from './post-transaction.js'
import { expirePendingTransfers, postPendingTransaction, voidPendingTransaction } from './resolve-pending.js'

// Random operation sequences against a model of TigerBeetle's counter rules; after every step the
// database must equal the model and satisfy checkLedgerInvariants (docs/conventions.md, 'Ledger').

const merchantIndex = fc.integer({ min: 0, max: 2 })
const amount = fc.bigInt({ min: 1n, max: 1_500n })
const currency = fc.constantFrom<LedgerCurrency>('USDT', 'NGN')
const operation = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), to: merchantIndex, amount, currency }),
  fc.record({
    kind: fc.constant('transfer' as const),
    from: merchantIndex,
    to: merchantIndex,
    amount,
    currency,
  }),
  fc.record({
    kind: fc.constant('reserve' as const),
    from: merchantIndex,
    amount,
    currency,
    expires: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('deposit' as const), to: merchantIndex, amount, currency }),
  fc.record({ kind: fc.constant('swap' as const), m: merchantIndex, usdt: amount, ngn: amount, fee: amount }),
  fc.record({ kind: fc.constantFrom('post' as const, 'void' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('expire' as const) }),
  fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }),
)
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never

type Pending = { transactionId: string; expiresAt: Date | null; resolved: boolean; legs: LedgerLeg[] }
type Model = { counters: Map<string, AccountCounters>; pendings: Pending[]; posted: PostTransactionInput[] }

const keyOf = (code: string, cur: string) => `${code}|${cur}`
// Accounts are created on first reference, even by a transaction that is then refused, so an
// all-zero account may exist in the database and not in the model; compare the others.
const nonZero = (counters: Map<string, AccountCounters>) =>
  new Map([...counters].filter(([, c]) => Object.values(c).some((v) => v !== 0n)))
const zero = (): AccountCounters => ({
  debitsPending: 0n,
  debitsPosted: 0n,
  creditsPending: 0n,
  creditsPosted: 0n,
})

// Applies legs to a copy of the model's counters; undefined when a merchant account would overdraw.
function applyLegs(model: Model, legs: LedgerLeg[], phase: 'single' | 'pending' | 'post' | 'void') {
  const next = new Map([...model.counters].map(([k, c]) => [k, { ...c }]))
  for (const leg of legs) {
    const debit = next.get(keyOf(leg.debit, leg.currency)) ?? zero()
    const credit = next.get(keyOf(leg.credit, leg.currency)) ?? zero()
    if (phase === 'single' || phase === 'pending') {
      if (leg.debit.startsWith('merchant:') && toAccountBalance(debit).available < leg.amount) {
        return undefined
      }
      const [d, c] =
        phase === 'single'
          ? (['debitsPosted', 'creditsPosted'] as const)
          : (['debitsPending', 'creditsPending'] as const)
      debit[d] += leg.amount
      credit[c] += leg.amount
    } else {
      debit.debitsPending -= leg.amount
      credit.creditsPending -= leg.amount
      if (phase === 'post') {
        debit.debitsPosted += leg.amount
        credit.creditsPosted += leg.amount
      }
    }
    next.set(keyOf(leg.debit, leg.currency), debit)
    next.set(keyOf(leg.credit, leg.currency), credit)
  }
  return next
}

describeEachDatabase('ledger invariants (property)', (getDb) => {
  test('property: random operation sequences keep the database equal to the model and the invariants true', async () => {
    const deps = createLedgerTestDeps(getDb())
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 10, maxLength: 30 }), async (operations) => {
        run += 1
        const merchants = (await createTestMerchants(deps, 3)).map(merchantAccount)
        const bank = `bank:run${run}` as AccountCode
        const custody = `custody:run${run}:asset` as AccountCode
        // Expire what earlier runs left pending, so this run's model starts from a settled ledger.
        deps.clock.advance(61_000)
        await expirePendingTransfers(deps, { limit: 10_000 })
        const model: Model = { counters: await readCounters(), pendings: [], posted: [] }
        for (const [index, cur] of [0, 1, 2].flatMap((i) => [[i, 'USDT'] as const, [i, 'NGN'] as const])) {
          await step(
            { kind: 'fund', to: index, amount: 2_000n, currency: cur },
            { merchants, bank, custody, model },
          )
        }
        for (const op of operations) {
          await step(op, { merchants, bank, custody, model })
          expect(nonZero(await readCounters())).toEqual(nonZero(model.counters))
          expect(await checkLedgerInvariants(deps)).toEqual([])
        }
      }),
      // Runs share one database, so after a failure later runs start dirty: report the first
      // counterexample as found instead of shrinking against a polluted ledger.
      { numRuns: 15, endOnFailure: true },
    )

    async function readCounters(): Promise<Map<string, AccountCounters>> {
      const rows = await deps.db
        .selectFrom('ledger_accounts')
        .select(['code', 'currency', 'debits_pending', 'debits_posted', 'credits_pending', 'credits_posted'])
        .select(availableSql.as('available'))
        .where('environment', '=', 'test')
        .execute()
      // The SQL form of `available` (the reserving UPDATE's condition) agrees with the one formula.
      for (const row of rows) {
        expect(BigInt(row.available)).toBe(toAccountBalance(toAccountCounters(row)).available)
      }
      return new Map(rows.map((row) => [keyOf(row.code, row.currency), toAccountCounters(row)]))
    }

    async function step(
      op: Operation,
      ctx: { merchants: AccountCode[]; bank: AccountCode; custody: AccountCode; model: Model },
    ): Promise<void> {
      const { merchants, model } = ctx
      const m = (i: number) => merchants[i] as AccountCode
      const key = deps.ids.create('prop')
      switch (op.kind) {
        case 'fund':
          return post({
            legs: [{ debit: 'sandbox:funding', credit: m(op.to), amount: op.amount, currency: op.currency }],
          })
        case 'transfer':
          if (op.from === op.to) {
            return
          }
          return post({
            legs: [{ debit: m(op.from), credit: m(op.to), amount: op.amount, currency: op.currency }],
          })
        case 'reserve':
          return post({
            legs: [{ debit: m(op.from), credit: ctx.bank, amount: op.amount, currency: op.currency }],
            pending: true,
            ...(op.expires ? { expiresAt: new Date(deps.clock.now().getTime() + 60_000) } : {}),
          })
        case 'deposit':
          return post({
            legs: [{ debit: ctx.custody, credit: m(op.to), amount: op.amount, currency: op.currency }],
            pending: true,
          })
        case 'swap':
          return post({
            legs: [
              { debit: m(op.m), credit: 'platform:fx', amount: op.usdt, currency: 'USDT' },
              { debit: 'platform:fx', credit: m(op.m), amount: op.ngn, currency: 'NGN' },
              { debit: m(op.m), credit: 'platform:fees', amount: op.fee, currency: 'USDT' },
            ],
          })
        case 'post':
        case 'void':
          return resolve(op.kind, op.pick)
        case 'expire':
          return expire()
        case 'replay':
          return replay(op.pick)
      }

      async function post(
        input: Pick<PostTransactionInput, 'legs' | 'pending' | 'expiresAt'>,
      ): Promise<void> {
        const full: PostTransactionInput = {
          environment: 'test',
          idempotencyKey: key,
          source: 'adjustment',
          ...input,
        }
        const legs = [...input.legs]
        const expected = applyLegs(model, legs, input.pending ? 'pending' : 'single')
        const result = await postTransaction(deps, full).catch((e: unknown) => e)
        if (!expected) {
          expect(isAppError(result, 'insufficient_balance')).toBe(true)
          return
        }
        expect(isAppError(result)).toBe(false)
        model.counters = expected
        model.posted.push(full)
        if (input.pending && !isAppError(result)) {
          const { id } = result as { id: string }
          model.pendings.push({
            transactionId: id,
            expiresAt: input.expiresAt ?? null,
            resolved: false,
            legs,
          })
        }
      }

      async function resolve(kind: 'post' | 'void', pick: number): Promise<void> {
        // Mostly an open one; every fourth pick may hit a resolved one (exercising "at most once").
        const open = model.pendings.filter((p) => !p.resolved)
        const pool = pick % 4 === 0 || open.length === 0 ? model.pendings : open
        const pending = pool[pick % Math.max(1, pool.length)]
        if (!pending) {
          return
        }
        const fn = kind === 'post' ? postPendingTransaction : voidPendingTransaction
        const result = await fn(deps, { environment: 'test', transactionId: pending.transactionId }).catch(
          (e: unknown) => e,
        )
        const expired = pending.expiresAt !== null && pending.expiresAt <= deps.clock.now()
        if (pending.resolved) {
          // Same resolution again is an idempotent replay or a refusal; never a second resolution.
          expect(isAppError(result) ? result.code : 'replayed').toMatch(
            /replayed|pending_transfer_already_resolved/,
          )
          return
        }
        if (kind === 'post' && expired) {
          expect(isAppError(result, 'pending_transfer_expired')).toBe(true)
          return
        }
        expect(isAppError(result)).toBe(false)
        model.counters = applyLegs(model, pending.legs, kind) ?? model.counters
        pending.resolved = true
      }

      async function expire(): Promise<void> {
        deps.clock.advance(61_000)
        const due = model.pendings.filter(
          (p) => !p.resolved && p.expiresAt !== null && p.expiresAt <= deps.clock.now(),
        )
        const expired = await expirePendingTransfers(deps, { limit: 1_000 })
        expect(expired).toBe(due.reduce((n, p) => n + p.legs.length, 0))
        for (const pending of due) {
          model.counters = applyLegs(model, pending.legs, 'void') ?? model.counters
          pending.resolved = true
        }
      }

      async function replay(pick: number): Promise<void> {
        const earlier = model.posted[pick % Math.max(1, model.posted.length)]
        if (earlier) {
          expect((await postTransaction(deps, earlier)).replayed).toBe(true)
        }
      }
    }
  }, 180_000)
})
