import {
  AppError,
  type FacilitatorClient,
  REASONS,
  type SettledOutcomeWrite,
  type SettleResponse,
} from '@tollgate/core'
import { type Selectable, sql } from 'kysely'
import { inTransaction } from '../db/in-transaction.js'
import type { X402TransactionsTable } from '../db/schema/x402.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import { ensureLedgerAccounts } from '../ledger/lock-accounts.js'
import type { PostTransactionInput } from '../ledger/post-transaction.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { toPostingBatchCtes } from '../ledger/posting-batch-ctes.js'
import { isMissingLedgerAccount, toPostingCtes } from '../ledger/posting-ctes.js'
import type { Db } from '../rails/types.js'
import { createCoalescer } from '../util/coalesce.js'
import { toX402Transaction } from './list-x402-transactions.js'
import { type MerchantX402Request, type PayToCache, parseX402Request } from './parse-x402-request.js'
import type { X402Transaction } from './schemas.js'
import { verifyX402Transfer } from './verify-x402-transfer.js'
import { rescale, toLegRefs, toX402Legs, toX402Posting } from './x402-ledger.js'

type SettleInput = { merchantId: string; environment: KeyEnvironment; body: unknown }

/**
 * POST /x402/settle: settles a signed payment through the in-process facilitator (exactly once per
 * payment; of several calls for one payment one is answered, the others are refused with
 * `duplicate_settlement`, docs/security.md) and records it for the merchant. A payment to one of the
 * merchant's own x402 addresses credits its balance through the ledger, net of the x402 fee, once
 * per on-chain transaction. Returns the stored x402 transaction.
 */
export async function settleX402(
  deps: Pick<Deps, 'db' | 'rails' | 'ids' | 'clock' | 'settings'>,
  facilitator: FacilitatorClient,
  input: SettleInput,
  payToCache?: PayToCache,
): Promise<X402Transaction> {
  const parsed = await parseX402Request(deps, input, payToCache)
  if (!parsed.payToAllowed) {
    throw new AppError('pay_to_not_allowed', {
      message: `payTo ${parsed.payTo} is not one of this merchant's x402 addresses`,
      context: { param: 'paymentRequirements.payTo' },
    })
  }
  // The credit's statement runs in the facilitator's settle when this call is the one that
  // settled the payment (`onSettled`): with the facilitator's outcome write in the same statement
  // when its store is on this database (one commit for both), else beside it. Otherwise (the retry
  // that takes a success the reconciler stored, a facilitator that ignores the hook) it runs here,
  // after settle. It is idempotent either way (unique on the transaction), so the ledger is
  // credited once.
  const written: { value?: WrittenSettlement } = {}
  const result = await facilitator.settle(parsed.request, {
    database: deps.db,
    // The in-process facilitator's per-caller settle window is per merchant and environment.
    caller: `merchant:${input.merchantId}:${input.environment}`,
    onSettled: async (settled, outcome) => {
      const joined = outcome && settled.transaction !== '' && joinsOutcome(parsed) ? outcome : undefined
      if (outcome && !joined) {
        outcome.release()
      }
      if (settled.transaction !== '') {
        written.value = await writeSettlement(deps, input, parsed, settled, joined)
      }
    },
  })
  const pending = !result.success && result.errorReason === REASONS.settlementPending
  if ((!result.success && !pending) || result.transaction === '') {
    throw new AppError('settlement_failed', {
      message: `The payment could not be settled: ${result.errorReason ?? 'unknown reason'}`,
      context: { details: { errorReason: result.errorReason ?? null } },
    })
  }
  const hooked = written.value?.plan.record.txHash === result.transaction ? written.value : undefined
  const { plan, inserted } = hooked ?? (await writeSettlement(deps, input, parsed, result))
  if (inserted) {
    return toX402Transaction(deps, inserted)
  }
  const { record, legs, posting } = plan
  // The transaction is already recorded: a repeated or concurrent settle of the same payment, or a
  // pending one that may now be confirmed. Rare, so it takes the row lock and posts step by step.
  if (legs.length > 0) {
    await ensureLedgerAccounts(deps, { environment: input.environment, refs: toLegRefs(legs) })
  }
  return inTransaction(deps.db, async (trx) => {
    const row = await recordTransaction(trx, deps, record)
    // A row first recorded as pending is credited by the settle call that finds it confirmed.
    if (row.status === 'confirmed' && row.credited && legs.length > 0) {
      await postTransaction({ ...deps, db: trx }, { ...posting(row.id), legs })
    }
    return toX402Transaction(deps, row)
  })
}

type SettlementPlan = {
  record: SettlementRecord
  legs: LedgerLeg[]
  posting: (rowId: string) => Omit<PostTransactionInput, 'legs'>
}

type WrittenSettlement = { plan: SettlementPlan; inserted: Selectable<X402TransactionsTable> | undefined }

/**
 * Screens the payer, works out the fee and the ledger legs of a settled (or pending) payment, and
 * runs {@link insertSettlement}: `inserted` is undefined when the transaction was already recorded.
 */
async function writeSettlement(
  deps: Pick<Deps, 'db' | 'rails' | 'ids' | 'clock' | 'settings'>,
  input: SettleInput,
  parsed: MerchantX402Request,
  result: SettleResponse,
  outcome?: SettledOutcomeWrite,
): Promise<WrittenSettlement> {
  const payer = result.payer ?? null
  // A success is believed only as far as the chain shows it (docs/security.md "Who is credited for
  // an x402 payment"); a `settlement_pending` answer is recorded pending and credits nothing until
  // the chain confirms the transfer (createX402TransferHandler, or a later settle of the payment).
  const [verified, amlCheck] = await Promise.all([
    result.success
      ? verifyX402Transfer(deps, { environment: input.environment, parsed, txHash: result.transaction })
      : undefined,
    payer ? deps.rails.screening.screen({ chain: parsed.entry.chain, address: payer }) : 'pending',
  ])
  const currency = parsed.custodied ? parsed.asset.ledgerCurrency : null
  const split = currency ? splitFee(deps, parsed, currency) : { gross: 0n, fee: 0n }
  const legs = currency
    ? toX402Legs({
        chain: parsed.entry.chain,
        asset: parsed.asset.symbol,
        merchantId: input.merchantId,
        currency,
        ...split,
      })
    : []
  const record: SettlementRecord = {
    ...input,
    parsed,
    txHash: result.transaction,
    status: verified?.confirmed ? 'confirmed' : 'pending',
    blockNumber: verified?.blockNumber ?? null,
    payer,
    amlCheck,
    fee: currency ? fromLedgerUnits(split.fee, ledgerCurrencies[currency], parsed.asset.decimals) : 0n,
    credited: legs.length > 0,
  }
  const posting = (rowId: string): Omit<PostTransactionInput, 'legs'> =>
    toX402Posting({
      environment: input.environment,
      network: parsed.entry.network,
      chain: parsed.entry.chain,
      txHash: result.transaction,
      rowId,
    })
  const plan = { record, legs, posting }
  return { plan, inserted: await insertSettlement(deps, plan, outcome) }
}

type SettlementRecord = SettleInput & {
  parsed: MerchantX402Request
  txHash: string
  status: 'pending' | 'confirmed'
  blockNumber: bigint | null
  payer: string | null
  amlCheck: string
  fee: bigint
  credited: boolean
}

type X402Row = Selectable<X402TransactionsTable>
type NullableRow = { [K in keyof X402Row]: X402Row[K] | null }
type CreditDeps = Pick<Deps, 'db' | 'ids' | 'clock'>
type Credit = { deps: CreditDeps; plan: SettlementPlan; outcome?: SettledOutcomeWrite | undefined }

/**
 * The common case, one statement: inserts the x402 transaction and, when it is confirmed and paid
 * to a custodied address, posts its ledger credit in the same statement (all or nothing). Returns
 * undefined, having written nothing, when the transaction is already recorded. Credits go through
 * {@link creditSettlement}, which runs concurrent ones as one statement.
 */
async function insertSettlement(
  deps: CreditDeps,
  input: SettlementPlan,
  outcome?: SettledOutcomeWrite,
): Promise<X402Row | undefined> {
  const { record, legs } = input
  if (record.status === 'confirmed' && legs.length > 0) {
    return creditSettlement(deps, input, outcome)
  }
  outcome?.release()
  return deps.db
    .insertInto('x402_transactions')
    .values(toRowValues(deps, record))
    .onConflict((oc) => oc.columns(['environment', 'network', 'tx_hash']).doNothing())
    .returningAll()
    .executeTakeFirst()
}

// One coalescer per database handle (so per process and per test harness).
const creditQueues = new WeakMap<object, (key: string, item: Credit) => Promise<X402Row | undefined>>()

/**
 * Whether a settle's credit takes the facilitator's outcome write into its statement: a credit (a
 * confirmed payment to a custodied address), alone or in a batch. Any other record leaves the
 * write to the facilitator, which sends it at once, as without the hand-over.
 */
function joinsOutcome(parsed: MerchantX402Request): boolean {
  return parsed.custodied && parsed.asset.ledgerCurrency !== null
}

// Credits of one environment and ledger currency queue behind each other in this process (docs/
// x402-merchant.md "Coalesced credits"): the first runs alone at once, exactly as a lone settle's;
// those that arrive while it runs go as one statement (insertCreditBatch), which takes the shared
// custody and fee accounts once for all of them instead of once each. The key is the currency, not
// only the environment: credits of different currencies share no account row, so one gains nothing
// from waiting for the other, and a batch refused for one currency's missing accounts (its first
// credit) does not send the other currency's credits alone with it.
function creditSettlement(
  deps: CreditDeps,
  plan: SettlementPlan,
  outcome: SettledOutcomeWrite | undefined,
): Promise<X402Row | undefined> {
  let coalesce = creditQueues.get(deps.db)
  if (!coalesce) {
    coalesce = createCoalescer<Credit, X402Row | undefined>({
      one: (c) => insertCredit(c.deps, c.plan, c.outcome),
      many: (batch) => insertCreditBatch(batch),
    })
    creditQueues.set(deps.db, coalesce)
  }
  const currency = plan.legs[0]?.currency ?? ''
  return coalesce(`${plan.record.environment}|${currency}`, { deps, plan, outcome })
}

/**
 * One credit alone: the x402 row (`on conflict do nothing`) gating its ledger posting, and the
 * facilitator's outcome write when it was handed over (reported through `outcome.written`). The
 * first credit of a merchant in a currency creates its ledger accounts and runs the statement again.
 */
async function insertCredit(
  deps: CreditDeps,
  input: SettlementPlan,
  outcome?: SettledOutcomeWrite,
): Promise<X402Row | undefined> {
  const { record, legs } = input
  const values = toRowValues(deps, record)
  const insert = deps.db
    .insertInto('x402_transactions')
    .values(values)
    .onConflict((oc) => oc.columns(['environment', 'network', 'tx_hash']).doNothing())
    .returningAll()
  const run = async () => {
    const { ctes } = toPostingCtes(deps, { ...input.posting(values.id), legs, gate: 'x402_row' })
    if (!outcome) {
      const { rows } = await sql<X402Row>`with x402_row as (${insert}), ${ctes}
        select * from x402_row`.execute(deps.db)
      return rows[0]
    }
    // One row whether or not the x402 row was inserted: its columns (null when it was not) and
    // whether the outcome write found this settle still holding the payment.
    const { rows } = await sql<NullableRow & { outcome_stored: boolean }>`with settled_outcome as (
        ${outcome.query}
      ), x402_row as (${insert}), ${ctes}
      select exists (select 1 from settled_outcome) as outcome_stored, x.*
      from (select 1) as one left join x402_row x on true`.execute(deps.db)
    const answer = rows[0]
    outcome.written(answer?.outcome_stored === true)
    if (!answer || answer.id === null) {
      return undefined
    }
    const { outcome_stored: _stored, ...row } = answer
    return row as X402Row
  }
  try {
    return await run()
  } catch (error) {
    if (!isMissingLedgerAccount(error)) {
      throw error
    }
    await ensureLedgerAccounts(deps, { environment: record.environment, refs: toLegRefs(legs) })
    return run()
  }
}

/**
 * Several credits of one environment and currency in one autocommit statement: their x402 rows,
 * their ledger transactions posted by toPostingBatchCtes (each its own transaction, transfers and
 * balance transactions, chained in arrival order; each account locked and moved once), and the
 * facilitator's outcome writes handed over with them. All or nothing: the rows are inserted
 * without `on conflict`, so one already recorded (a repeat, a concurrent duplicate, a pending row)
 * fails the unique index; a ledger key already used or a missing account fails the transfers' NOT
 * NULL. Then nothing is written and it answers undefined: each credit runs alone (insertCredit),
 * which handles all of those.
 */
async function insertCreditBatch(batch: Credit[]): Promise<(X402Row | undefined)[] | undefined> {
  const first = batch[0]
  if (!first) {
    return []
  }
  const { deps } = first
  // One environment for the whole batch: the coalescer's key (creditSettlement) includes it.
  const environment = first.plan.record.environment
  const credits = batch.map(({ plan }) => {
    const values = toRowValues(deps, plan.record)
    const posting = { ...plan.posting(values.id), legs: plan.legs, transactionId: deps.ids.create('ltx') }
    return { values, posting }
  })
  const ledger = toPostingBatchCtes(deps, {
    environment,
    transactions: credits.map((c) => c.posting),
    gate: 'x402_rows',
  })
  const names = Object.keys(credits[0]?.values ?? {})
  const columns = sql.join(names.map((column) => sql.ref(column)))
  const fromRecord = sql.join(names.map((column) => sql.ref(`r.${column}`)))
  const rows = JSON.stringify(
    credits.map((c) => c.values),
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
  )
  // The facilitator's outcome writes handed over with the credits, as one CTE whose text is the
  // same for any number of them (so the batch statement stays one prepared statement); it returns
  // the key of each write that found its settle still holding the payment.
  const outcomes = batch.flatMap((c) => (c.outcome ? [c.outcome] : []))
  const [head, ...rest] = outcomes
  const outcomeCte = head ? sql`settled_outcomes as (${head.queryWith(rest)}),` : sql``
  const stored = head ? sql`array(select key from settled_outcomes)` : sql`array[]::text[]`
  try {
    const { rows: inserted } = await sql<X402Row & { outcomes_stored: string[] }>`with ${outcomeCte}
      x402_rows as (
        insert into x402_transactions (${columns})
        select ${fromRecord} from json_populate_recordset(null::x402_transactions, ${rows}::json) r
        returning *
      ),
      ${ledger}
      select x.*, ${stored} as outcomes_stored from x402_rows x`.execute(deps.db)
    // The statement committed, so its outcome writes did.
    const keys = new Set(inserted[0]?.outcomes_stored ?? [])
    for (const outcome of outcomes) {
      outcome.written(keys.has(outcome.key))
    }
    const byId = new Map(inserted.map(({ outcomes_stored: _flags, ...row }) => [row.id, row as X402Row]))
    const answers = credits.map((c) => byId.get(c.values.id))
    return answers.every((row) => row !== undefined) ? answers : undefined
  } catch {
    // A row already recorded, a used key, a missing account: nothing was written, the outcomes
    // included; each credit runs alone with its own (insertCredit).
    return undefined
  }
}

/** Gross amount and fee of a credited payment in the ledger currency's minor units (fee half-up once). */
function splitFee(deps: Pick<Deps, 'settings'>, parsed: MerchantX402Request, currency: LedgerCurrency) {
  const gross = rescale(parsed.amount, parsed.asset.decimals, ledgerCurrencies[currency])
  const fee = (gross * BigInt(deps.settings.x402FeeBps) + 5_000n) / 10_000n
  return { gross, fee }
}

function fromLedgerUnits(amount: bigint, ledgerScale: number, decimals: number): bigint {
  return rescale(amount, ledgerScale, decimals)
}

function toRowValues(deps: Pick<Deps, 'ids' | 'clock'>, input: SettlementRecord) {
  const { parsed } = input
  const resource = parsed.normalized.paymentPayload.resource
  return {
    id: deps.ids.create('x4t'),
    merchant_id: input.merchantId,
    environment: input.environment,
    scheme: parsed.normalized.paymentPayload.accepted.scheme,
    network: parsed.entry.network,
    chain: parsed.entry.chain,
    asset: parsed.asset.symbol,
    asset_address: parsed.asset.address,
    tx_hash: input.txHash,
    status: input.status,
    aml_check: input.amlCheck,
    error_reason: null,
    resource: resource?.url ?? null,
    description: resource?.description ?? null,
    payer: input.payer,
    pay_to: parsed.payTo,
    amount: parsed.amount,
    fee: input.fee,
    credited: input.credited,
    block_number: input.blockNumber === null ? null : String(input.blockNumber),
    created_at: deps.clock.now(),
  }
}

async function recordTransaction(trx: Db, deps: Pick<Deps, 'ids' | 'clock'>, input: SettlementRecord) {
  const { parsed } = input
  const written = await trx
    .insertInto('x402_transactions')
    .values(toRowValues(deps, input))
    .onConflict((oc) =>
      oc
        .columns(['environment', 'network', 'tx_hash'])
        .doUpdateSet({
          status: input.status,
          block_number: input.blockNumber === null ? null : input.blockNumber.toString(),
        })
        .where('x402_transactions.status', '=', 'pending')
        .where('x402_transactions.merchant_id', '=', input.merchantId),
    )
    .returningAll()
    .executeTakeFirst()
  // A row this statement wrote is locked until commit; an existing confirmed one is locked here, so
  // concurrent settles of one payment credit the ledger one after the other (once).
  const row =
    written ??
    (await trx
      .selectFrom('x402_transactions')
      .selectAll()
      .where('environment', '=', input.environment)
      .where('network', '=', parsed.entry.network)
      .where('tx_hash', '=', input.txHash)
      .forUpdate()
      .executeTakeFirstOrThrow())
  if (row.merchant_id !== input.merchantId) {
    throw new AppError('not_found', { message: `Transaction ${input.txHash} not found` })
  }
  return row
}
