import { createHash } from 'node:crypto'
import { AppError, isAppError } from '@tollgate/core'
import { type RawBuilder, sql } from 'kysely'
import type { PayoutKind } from '../db/schema/payouts.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import { notifyDueJob } from '../jobs/enqueue-job.js'
import { merchantAccount, treasuryCustodyAccount } from '../ledger/chart-of-accounts.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import {
  formatLedgerAmount,
  type LedgerCurrency,
  ledgerCurrencies,
  parseLedgerAmount,
} from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import { ensureLedgerAccounts } from '../ledger/lock-accounts.js'
import { toPostingBatchCtes } from '../ledger/posting-batch-ctes.js'
import { isLedgerOverdraft, isMissingLedgerAccount, toPostingCtes } from '../ledger/posting-ctes.js'
import { findRecipient } from '../recipients/get-recipient.js'
import type { RecipientRow } from '../recipients/recipient.js'
import { createCoalescer } from '../util/coalesce.js'
import { sourceForTarget } from './exact-rate.js'
import type { PayoutRow } from './payout.js'
import { findPayoutFee } from './payout-fee.js'
import { reconcilePayoutJob } from './payout-jobs.js'

/** Ledger accounts of the payout rails (docs/payouts.md "Ledger"). */
export const payoutAccounts = { bank: 'bank:primary', momo: 'momo:primary' } as const

/** The fields of POST /payouts. */
export type PayoutRequest = {
  currency: 'NGN' | 'USDT' | 'USDC' | 'KES' | 'GHS'
  recipientId: string
  sourceCurrency?: 'USDT' | 'USDC' | undefined
  quoteId?: string | undefined
  amount?: string | undefined
  narration?: string | undefined
  reference?: string | undefined
  webhookUrl?: string | undefined
}

/** Input of {@link createPayout}: the request and who makes it. */
export type CreatePayoutInput = {
  merchantId: string
  environment: KeyEnvironment
  format: ResponseFormat
  request: PayoutRequest
}

type Plan = {
  kind: PayoutKind
  currency: LedgerCurrency
  amount: bigint
  fee: bigint
  targetCurrency: LedgerCurrency
  targetAmount: bigint
  rate: string | null
  quoteId: string | null
  legs: LedgerLeg[]
  usdEquivalent: bigint
}

const invalid = (param: string, message: string) =>
  new AppError('validation_error', {
    message,
    context: { param, details: [{ field: `body.${param}`, message, code: 'invalid' }] },
  })

/**
 * Accepts a payout: checks the recipient, prices it (fee table, FX or quote), and in one transaction
 * records it as `pending`, reserves amount + fee in the ledger (a pending debit), counts it against
 * the daily limit and queues its backstop job. `reference` is a permanent idempotency key: the same
 * fields return the existing payout (`created: false`), other fields are 409 `duplicate_reference`.
 * The caller then hands it to its provider with `submitPayout` (docs/payouts.md).
 */
export async function createPayout(
  deps: Deps,
  input: CreatePayoutInput,
): Promise<{ payout: PayoutRow; created: boolean }> {
  const { request } = input
  const requestHash = hashRequest(request)
  if (request.reference !== undefined) {
    const existing = await findByReference(deps, input, request.reference)
    if (existing) {
      return { payout: assertSameRequest(existing, requestHash), created: false }
    }
  }
  const recipient = await findRecipient(deps, {
    merchantId: input.merchantId,
    environment: input.environment,
    id: request.recipientId,
  })
  if (!recipient) {
    throw new AppError('recipient_not_found', {
      message: `Recipient ${request.recipientId} not found`,
      context: { param: 'recipientId' },
    })
  }
  const plan = await planPayout(deps, input, recipient)
  const now = deps.clock.now()
  const id = deps.ids.create('po')
  const reference = request.reference ?? id.replace(/^po_/, 'PO-').toUpperCase()
  const payout = { id, reference, requestHash, recipient, plan, now }
  const outcome = await reservePayout(deps, input, payout).catch(async (error: unknown) => {
    throw isAppError(error, 'insufficient_balance') ? await describeShortfall(deps, input, plan) : error
  })
  if ('existing' in outcome) {
    if (!outcome.existing) {
      throw new AppError('internal_error', { message: `payout reference ${reference} vanished` })
    }
    return { payout: assertSameRequest(outcome.existing, requestHash), created: false }
  }
  return { payout: outcome.payout, created: true }
}

type Outcome = { payout: PayoutRow } | { existing: PayoutRow | undefined }
type Reserve = { deps: Deps; input: CreatePayoutInput; payout: NewPayout }

// One coalescer per database handle (so per process and per test harness).
const coalescers = new WeakMap<object, (key: string, item: Reserve) => Promise<Outcome>>()

// Reserves of one merchant queue behind each other in this process and run as batches, one statement
// and one lock of the merchant's rows per batch (docs/payouts.md "Coalesced reserves"). A payout with
// a quote runs on its own (its claim is its own gate). The database stays the arbiter: the batch's
// statement checks the limit and the balance on the batch's total, and a refused batch runs each
// payout alone, so each gets its own answer, and other processes are serialised by the row locks.
function reservePayout(deps: Deps, input: CreatePayoutInput, payout: NewPayout): Promise<Outcome> {
  if (payout.plan.quoteId !== null) {
    return recordPayoutCreatingAccounts(deps, input, payout)
  }
  let coalesce = coalescers.get(deps.db)
  if (!coalesce) {
    coalesce = createCoalescer<Reserve, Outcome>({
      one: (r) => recordPayoutCreatingAccounts(r.deps, r.input, r.payout),
      many: (batch) => recordPayoutBatch(batch),
    })
    coalescers.set(deps.db, coalesce)
  }
  return coalesce(`${input.merchantId}|${input.environment}`, { deps, input, payout })
}

// The first payout to a counterparty account (treasury, fees) finds it missing: it is created outside
// the transaction (never while holding its locks), and the transaction runs again. A merchant account
// still missing then means a zero balance.
async function recordPayoutCreatingAccounts(deps: Deps, input: CreatePayoutInput, payout: NewPayout) {
  try {
    return await recordPayout(deps, input, payout)
  } catch (error) {
    if (!isMissingLedgerAccount(error)) {
      throw error
    }
  }
  await ensureLedgerAccounts(deps, {
    environment: input.environment,
    refs: payout.plan.legs.flatMap((leg) =>
      [leg.debit, leg.credit]
        .filter((code) => !code.startsWith('merchant:'))
        .map((code) => ({ code, currency: leg.currency })),
    ),
  })
  return recordPayout(deps, input, payout).catch((error: unknown) => {
    throw isMissingLedgerAccount(error) ? new AppError('insufficient_balance', { cause: error }) : error
  })
}

// The refusal says what is available, read after the refused transaction rolled back.
async function describeShortfall(deps: Deps, input: CreatePayoutInput, plan: Plan): Promise<AppError> {
  const { available } = await getAccountBalance(deps, {
    environment: input.environment,
    code: merchantAccount(input.merchantId),
    currency: plan.currency,
  })
  const shown = formatLedgerAmount(available > 0n ? available : 0n, plan.currency)
  const required = formatLedgerAmount(plan.amount + plan.fee, plan.currency)
  return new AppError('insufficient_balance', {
    message: `Insufficient ${plan.currency} balance: ${shown} available, ${required} required`,
    context: { param: 'amount', details: { currency: plan.currency, available: shown, required } },
  })
}

type NewPayout = {
  id: string
  reference: string
  requestHash: string
  recipient: RecipientRow
  plan: Plan
  now: Date
}

// One autocommit statement records the payout: its quote's claim, the daily-usage count, the
// ledger reserve (a pending debit of amount + fee), the payout row and its backstop job. The
// merchant's usage row and ledger account, which every payout of the merchant locks, are taken in
// it (usage first, then the accounts in id order, as settlePayout's void) and released by its own
// commit, with no round trip to this process in between. Each refusal writes nothing: the account's
// CHECK constraint refuses an overdraft and a second payout with the reference fails the unique
// index (both abort the statement); a used quote or the limit leave the gates below empty. Throws
// isMissingLedgerAccount's error, having written nothing, when a ledger account does not exist yet.
function toPayoutRecord(deps: Deps, input: CreatePayoutInput, payout: NewPayout) {
  const { id, reference, plan, recipient, now } = payout
  const ledgerTransactionId = deps.ids.create('ltx')
  const row = {
    id,
    merchant_id: input.merchantId,
    environment: input.environment,
    reference,
    request_hash: payout.requestHash,
    method: plan.kind === 'crypto' ? 'crypto' : 'fiat',
    kind: plan.kind,
    status: 'pending',
    currency: plan.currency,
    amount: String(plan.amount),
    fee: String(plan.fee),
    total: String(plan.amount + plan.fee),
    target_currency: plan.targetCurrency,
    target_amount: String(plan.targetAmount),
    rate: plan.rate,
    narration: input.request.narration ?? '',
    recipient_id: recipient.id,
    recipient: { id: recipient.id, type: recipient.type, details: recipient.details },
    channel: 'API',
    quote_id: plan.quoteId,
    webhook_url: input.request.webhookUrl ?? null,
    response_format: input.format,
    usd_equivalent: String(plan.usdEquivalent),
    usage_day: now.toISOString().slice(0, 10),
    // The reservation's id is chosen here so the payout row is written with it, not updated after.
    ledger_transaction_id: ledgerTransactionId,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  }
  const posting = {
    environment: input.environment,
    idempotencyKey: `payout:${id}`,
    transactionId: ledgerTransactionId,
    pending: true,
    legs: plan.legs,
    source: 'payout' as const,
    sourceId: id,
    sourceReference: reference,
    description: `Payout to ${recipient.label}`,
  }
  // Backstop: if this process stops before handing the payout to its provider, the job does it.
  const job = {
    id: deps.ids.create('job'),
    kind: reconcilePayoutJob,
    key: `${id}:0`,
    payload: JSON.stringify({ payoutId: id, attempt: 0 }),
    runAt: new Date(now.getTime() + deps.settings.payouts.submitGraceMs),
  }
  return { row, posting, job }
}

// The merchant's daily limit and the conditional count of `amount` in its usage of `day`: the
// `payout_usage` CTE yields a row only when the new total stays within the limit, and gates the
// rest of the statement. `after` names further CTEs that must yield a row too (the quote's claim).
// Shared by the single and the batched reserve, so both count usage the same way.
function usageCtes(
  deps: Deps,
  input: Pick<CreatePayoutInput, 'merchantId' | 'environment'>,
  usage: { day: string; amount: bigint; after: RawBuilder<unknown> },
) {
  const defaultLimit = parseLedgerAmount(deps.settings.payouts.dailyLimitUsd, 'USDT')
  return sql`payout_limit as (
        select coalesce((select payout_daily_limit from merchants where id = ${input.merchantId}::text),
          ${defaultLimit}::numeric) as daily_limit
      ),
      payout_usage as (
        insert into payout_daily_usage (merchant_id, environment, day, used)
        select ${input.merchantId}::text, ${input.environment}::text, ${usage.day}::text, ${usage.amount}::numeric
        from payout_limit${usage.after}
        where ${usage.amount}::numeric <= daily_limit
        on conflict (merchant_id, environment, day) do update
        set used = payout_daily_usage.used + excluded.used
        where payout_daily_usage.used + excluded.used <= (select daily_limit from payout_limit)
        returning used
      )`
}

const payoutColumns = (row: object) => sql.join(Object.keys(row).map((column) => sql.ref(column)))

async function recordPayout(deps: Deps, input: CreatePayoutInput, payout: NewPayout): Promise<Outcome> {
  const { id, reference, plan, now } = payout
  const { row, posting, job } = toPayoutRecord(deps, input, payout)
  const columns = payoutColumns(row)
  const fromRecord = sql.join(Object.keys(row).map((column) => sql.ref(`r.${column}`)))
  const { ctes } = toPostingCtes(deps, { ...posting, gate: 'payout_usage' })
  const amount = plan.usdEquivalent
  // A quote pays once: claimed by one conditional update, which gates everything after it.
  const quote =
    plan.quoteId === null
      ? sql`payout_quote as (select 1 as claimed)`
      : sql`payout_quote as (
          update payout_quotes set payout_id = ${id}::text, used_at = ${now}::timestamptz
          where id = ${plan.quoteId}::text and merchant_id = ${input.merchantId}::text
            and environment = ${input.environment}::text and payout_id is null and expires_at > ${now}::timestamptz
          returning 1 as claimed
        )`
  type Result = PayoutRow & {
    daily_limit: string
    quote_claimed: string
    reserved: string
    notified: string | null
  }
  let result: Result | undefined
  try {
    const { rows } = await sql<Result>`with ${quote},
      ${usageCtes(deps, input, { day: row.usage_day, amount, after: sql`, payout_quote` })},
      ${ctes},
      payout_row as (
        insert into payouts (${columns})
        select ${fromRecord}
        from ledger_claimed, json_populate_record(null::payouts, ${JSON.stringify(row)}::json) r
        returning *
      ),
      payout_job as (
        insert into jobs (id, kind, key, payload, run_at, created_at, updated_at)
        select ${job.id}::text, ${job.kind}::text, ${job.key}::text, ${job.payload}::jsonb,
          ${job.runAt}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
        from payout_row
        on conflict (kind, key) where key is not null and status in ('queued', 'running') do nothing
        returning kind, run_at
      )
      select p.*, (select daily_limit from payout_limit) as daily_limit,
        (select count(*) from payout_quote) as quote_claimed,
        (select count(*) from payout_usage) as reserved,
        (select ${notifyDueJob(deps)} from payout_job) as notified
      from (select 1) one
      left join payout_row p on true`.execute(deps.db)
    result = rows[0]
  } catch (error) {
    if (isLedgerOverdraft(error)) {
      throw new AppError('insufficient_balance', { cause: error })
    }
    if (isDuplicateReference(error)) {
      // Another request with this reference committed first (the unique index held it until then).
      return { existing: await findByReference(deps, input, reference) }
    }
    throw error
  }
  if (Number(result?.quote_claimed ?? 0) !== 1 && plan.quoteId !== null) {
    throw await quoteRefusal(deps, plan.quoteId)
  }
  if (Number(result?.reserved ?? 0) !== 1) {
    throw new AppError('daily_limit_exceeded', {
      message: 'This payout would exceed the daily payout limit',
      context: { param: 'amount', details: { limitUsd: formatUsd(BigInt(result?.daily_limit ?? 0)) } },
    })
  }
  if (result?.id !== id) {
    throw new AppError('internal_error', { message: `payout ${id}: ledger key payout:${id} already used` })
  }
  const {
    daily_limit: _limit,
    quote_claimed: _quote,
    reserved: _reserved,
    notified: _notified,
    ...inserted
  } = result
  return { payout: inserted as PayoutRow }
}

// The reserves of one merchant and environment that waited together, recorded by one autocommit
// statement: the daily usage counts the batch's total, the ledger reserves every payout's amount + fee
// (its own ledger transaction, toPostingBatchCtes: the merchant's account locked and moved once), and
// the payout rows and their backstop jobs are inserted. All or none: when the total passes the limit
// (nothing written), the balance does not cover it, a reference is taken, or an account is missing
// (the statement fails, writing nothing), it answers undefined and each payout runs alone.
async function recordPayoutBatch(batch: Reserve[]): Promise<Outcome[] | undefined> {
  const first = batch[0]
  if (!first) {
    return []
  }
  const { deps, input } = first
  const records = batch.map((r) => toPayoutRecord(deps, r.input, r.payout))
  const day = records[0]?.row.usage_day ?? ''
  if (records.some((r) => r.row.usage_day !== day)) {
    return undefined
  }
  const amount = batch.reduce((sum, r) => sum + r.payout.plan.usdEquivalent, 0n)
  const ledger = toPostingBatchCtes(deps, {
    environment: input.environment,
    transactions: records.map((r) => r.posting),
    gate: 'payout_usage',
  })
  const rows = records.map((r) => r.row)
  const jobs = records.map(({ job }) => ({
    id: job.id,
    kind: job.kind,
    key: job.key,
    payload: JSON.parse(job.payload) as unknown,
    run_at: job.runAt.toISOString(),
  }))
  const now = deps.clock.now()
  const columns = payoutColumns(records[0]?.row ?? {})
  const fromRecord = sql.join(Object.keys(records[0]?.row ?? {}).map((column) => sql.ref(`r.${column}`)))
  try {
    const { rows: inserted } = await sql<PayoutRow & { notified: string | null }>`with
      ${usageCtes(deps, input, { day, amount, after: sql`` })},
      ${ledger},
      payout_rows as (
        insert into payouts (${columns})
        select ${fromRecord}
        from json_populate_recordset(null::payouts, ${JSON.stringify(rows)}::json) r
        where (select count(*) from ledger_batch_claimed) = ${batch.length}::int
        returning *
      ),
      payout_jobs as (
        insert into jobs (id, kind, key, payload, run_at, created_at, updated_at)
        select j.id, j.kind, j.key, j.payload, j.run_at, ${now}::timestamptz, ${now}::timestamptz
        from json_to_recordset(${JSON.stringify(jobs)}::json)
          as j (id text, kind text, key text, payload jsonb, run_at timestamptz)
        where exists (select 1 from payout_rows)
        on conflict (kind, key) where key is not null and status in ('queued', 'running') do nothing
        returning kind, run_at
      )
      select p.*, (select string_agg((${notifyDueJob(deps)})::text, '') from payout_jobs) as notified
      from payout_rows p`.execute(deps.db)
    if (inserted.length !== batch.length) {
      return undefined
    }
    const byId = new Map(inserted.map(({ notified: _notified, ...row }) => [row.id, row as PayoutRow]))
    const outcomes = batch.map((r) => byId.get(r.payout.id))
    return outcomes.every((p) => p !== undefined) ? outcomes.map((p) => ({ payout: p })) : undefined
  } catch {
    // Overdraft, a taken reference, a missing account: nothing was written; each payout runs alone.
    return undefined
  }
}

function isDuplicateReference(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown }
  return e.code === '23505' && e.constraint === 'payouts_reference_idx'
}

async function planPayout(deps: Deps, input: CreatePayoutInput, recipient: RecipientRow): Promise<Plan> {
  const { request, merchantId } = input
  const fees = deps.settings.payouts.fees
  const wrongType = (expected: string) =>
    invalid(
      'recipientId',
      `A ${request.currency} payout needs a ${expected} recipient; ${recipient.id} is ${recipient.type}`,
    )
  if (request.currency === 'NGN' || request.currency === 'USDT' || request.currency === 'USDC') {
    if (request.sourceCurrency !== undefined || request.quoteId !== undefined) {
      throw invalid(
        request.sourceCurrency !== undefined ? 'sourceCurrency' : 'quoteId',
        'sourceCurrency and quoteId apply to cross-border (KES, GHS) payouts only',
      )
    }
    if (request.amount === undefined) {
      throw invalid('amount', 'amount is required')
    }
    const amount = parseAmount(request.amount, request.currency, 'amount')
    if (request.currency === 'NGN') {
      if (recipient.type !== 'ngn_bank_account') {
        throw wrongType('ngn_bank_account')
      }
      const fee = findPayoutFee(fees, { kind: 'local_fiat', currency: 'NGN' })
      if (fee === undefined) {
        throw invalid('currency', 'NGN payouts are not offered')
      }
      const rate = await deps.rails.fx.getRate('NGN', 'USDT')
      const usdEquivalent = deps.rails.fx.convert({
        amount: amount + fee,
        fromScale: 2,
        toScale: 6,
        rate: rate.rate,
      })
      return {
        kind: 'local_fiat',
        currency: 'NGN',
        amount,
        fee,
        targetCurrency: 'NGN',
        targetAmount: amount,
        rate: null,
        quoteId: null,
        legs: toLegs(merchantId, 'NGN', amount, fee, payoutAccounts.bank),
        usdEquivalent,
      }
    }
    if (recipient.type !== 'crypto_address') {
      throw wrongType('crypto_address')
    }
    const chain = recipient.details.chain ?? ''
    const asset = deps.rails.chains.findAsset(input.environment, chain as never, request.currency)
    const fee = findPayoutFee(fees, { kind: 'crypto', asset: request.currency, chain })
    if (!asset || fee === undefined) {
      throw new AppError('unsupported_asset_chain', {
        message: `${request.currency} payouts on ${chain} are not supported`,
        context: { param: 'currency' },
      })
    }
    return {
      kind: 'crypto',
      currency: request.currency,
      amount,
      fee,
      targetCurrency: request.currency,
      targetAmount: amount,
      rate: null,
      quoteId: null,
      legs: toLegs(
        merchantId,
        request.currency,
        amount,
        fee,
        treasuryCustodyAccount(chain, request.currency),
      ),
      usdEquivalent: amount + fee,
    }
  }
  const expectedType = request.currency === 'KES' ? 'kes_mobile_money' : 'ghs_mobile_money'
  if (recipient.type !== expectedType) {
    throw wrongType(expectedType)
  }
  await assertVerified(deps, merchantId)
  const priced =
    request.quoteId === undefined ? await priceAtCurrentRate(deps, input) : await priceFromQuote(deps, input)
  const legs = toLegs(merchantId, priced.sourceCurrency, priced.source, priced.fee, 'platform:fx')
  legs.push({
    debit: 'platform:fx',
    credit: payoutAccounts.momo,
    amount: priced.target,
    currency: request.currency,
  })
  return {
    kind: 'cross_border',
    currency: priced.sourceCurrency,
    amount: priced.source,
    fee: priced.fee,
    targetCurrency: request.currency,
    targetAmount: priced.target,
    rate: priced.rate,
    quoteId: request.quoteId ?? null,
    legs,
    usdEquivalent: priced.source + priced.fee,
  }
}

type Priced = { sourceCurrency: 'USDT' | 'USDC'; source: bigint; fee: bigint; target: bigint; rate: string }

async function priceAtCurrentRate(deps: Deps, input: CreatePayoutInput): Promise<Priced> {
  const { request } = input
  const currency = request.currency as 'KES' | 'GHS'
  if (request.sourceCurrency === undefined) {
    throw invalid(
      'sourceCurrency',
      'sourceCurrency (USDT or USDC) is required for a cross-border payout without quoteId',
    )
  }
  if (request.amount === undefined) {
    throw invalid('amount', 'amount (what the recipient receives) is required without quoteId')
  }
  const target = parseAmount(request.amount, currency, 'amount')
  const sourceCurrency = request.sourceCurrency
  const fee = findPayoutFee(deps.settings.payouts.fees, { kind: 'cross_border', currency, sourceCurrency })
  if (fee === undefined) {
    throw invalid('currency', `${currency} payouts are not offered`)
  }
  const { rate } = await deps.rails.fx.getRate(sourceCurrency, currency)
  const scales = { fromScale: ledgerCurrencies[sourceCurrency], toScale: ledgerCurrencies[currency] }
  const source = sourceForTarget({ target, ...scales, rate })
  if (deps.rails.fx.convert({ amount: source, ...scales, rate }) !== target) {
    throw invalid(
      'amount',
      `${request.amount} ${currency} cannot be paid exactly at the rate ${rate}; use a quote`,
    )
  }
  return { sourceCurrency, source, fee, target, rate }
}

async function priceFromQuote(deps: Deps, input: CreatePayoutInput): Promise<Priced> {
  const { request } = input
  const quote = await deps.db
    .selectFrom('payout_quotes')
    .selectAll()
    .where('id', '=', request.quoteId ?? '')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .executeTakeFirst()
  if (!quote) {
    throw invalid('quoteId', `Quote ${request.quoteId} not found`)
  }
  if (quote.currency !== request.currency) {
    throw invalid('currency', `Quote ${quote.id} pays ${quote.currency}, not ${request.currency}`)
  }
  if (request.sourceCurrency !== undefined && request.sourceCurrency !== quote.source_currency) {
    throw invalid('sourceCurrency', `Quote ${quote.id} is funded from ${quote.source_currency}`)
  }
  const target = BigInt(quote.target_amount)
  if (request.amount !== undefined && parseAmount(request.amount, request.currency, 'amount') !== target) {
    throw invalid('amount', `amount differs from the quoted amount; omit it to pay the quote`)
  }
  return {
    sourceCurrency: quote.source_currency as 'USDT' | 'USDC',
    source: BigInt(quote.source_amount),
    fee: BigInt(quote.fee),
    target,
    rate: quote.rate,
  }
}

/** Cross-border payouts are for verified businesses only (403 `forbidden`). */
export async function assertVerified(deps: Pick<Deps, 'db'>, merchantId: string): Promise<void> {
  const merchant = await deps.db
    .selectFrom('merchants')
    .select('verified')
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow()
  if (!merchant.verified) {
    throw new AppError('forbidden', {
      message: 'Cross-border payouts are available to verified businesses only',
    })
  }
}

function toLegs(
  merchantId: string,
  currency: LedgerCurrency,
  amount: bigint,
  fee: bigint,
  counterparty: LedgerLeg['credit'],
): LedgerLeg[] {
  const legs: LedgerLeg[] = [{ debit: merchantAccount(merchantId), credit: counterparty, amount, currency }]
  if (fee > 0n) {
    legs.push({ debit: merchantAccount(merchantId), credit: 'platform:fees', amount: fee, currency })
  }
  return legs
}

function parseAmount(value: string, currency: LedgerCurrency, param: string): bigint {
  try {
    return parseLedgerAmount(value, currency)
  } catch (error) {
    throw invalid(param, error instanceof Error ? error.message : String(error))
  }
}

// Why a quote's claim found nothing: it was used by another payout, or it expired.
async function quoteRefusal(deps: Deps, quoteId: string): Promise<AppError> {
  const quote = await deps.db
    .selectFrom('payout_quotes')
    .select(['payout_id', 'expires_at'])
    .where('id', '=', quoteId)
    .executeTakeFirstOrThrow()
  if (quote.payout_id !== null) {
    return new AppError('quote_already_used', {
      message: `Quote ${quoteId} was already used by payout ${quote.payout_id}`,
      context: { param: 'quoteId' },
    })
  }
  return new AppError('quote_expired', {
    message: `Quote ${quoteId} expired at ${quote.expires_at.toISOString()}; ask for a new one`,
    context: { param: 'quoteId' },
  })
}

function formatUsd(micro: bigint): string {
  return `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0').slice(0, 2)}`
}

async function findByReference(
  deps: Pick<Deps, 'db'>,
  input: CreatePayoutInput,
  reference: string,
): Promise<PayoutRow | undefined> {
  return deps.db
    .selectFrom('payouts')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('reference', '=', reference)
    .executeTakeFirst()
}

function assertSameRequest(existing: PayoutRow, requestHash: string): PayoutRow {
  if (existing.request_hash !== requestHash) {
    throw new AppError('duplicate_reference', {
      message: `Reference ${existing.reference} was already used for payout ${existing.id} with other fields`,
      context: { param: 'reference', details: { payoutId: existing.id } },
    })
  }
  return existing
}

function hashRequest(request: PayoutRequest): string {
  const canonical = [
    request.currency,
    request.recipientId,
    request.sourceCurrency ?? null,
    request.quoteId ?? null,
    request.amount ?? null,
    request.narration ?? null,
    request.webhookUrl ?? null,
  ]
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex')
}
