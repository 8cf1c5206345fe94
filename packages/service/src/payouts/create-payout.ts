import { createHash } from 'node:crypto'
import { AppError } from '@tollgate/core'
import { sql } from 'kysely'
import { inTransaction } from '../db/in-transaction.js'
import type { PayoutKind } from '../db/schema/payouts.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import { enqueueJob } from '../jobs/enqueue-job.js'
import { merchantAccount, treasuryCustodyAccount } from '../ledger/chart-of-accounts.js'
import { type LedgerCurrency, ledgerCurrencies, parseLedgerAmount } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import { ensureLedgerAccounts } from '../ledger/lock-accounts.js'
import { createPendingTransfer } from '../ledger/post-transaction.js'
import { findRecipient } from '../recipients/get-recipient.js'
import type { RecipientRow } from '../recipients/recipient.js'
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
  const merchant = await deps.db
    .selectFrom('merchants')
    .select('payout_daily_limit')
    .where('id', '=', input.merchantId)
    .executeTakeFirstOrThrow()
  const dailyLimit =
    merchant.payout_daily_limit === null
      ? parseLedgerAmount(deps.settings.payouts.dailyLimitUsd, 'USDT')
      : BigInt(merchant.payout_daily_limit)
  // Counterparty accounts are created outside the transaction (never while holding its locks); a
  // missing merchant account means a zero balance.
  await ensureLedgerAccounts(deps, {
    environment: input.environment,
    refs: plan.legs.flatMap((leg) =>
      [leg.debit, leg.credit]
        .filter((code) => !code.startsWith('merchant:'))
        .map((code) => ({ code, currency: leg.currency })),
    ),
  })
  await assertMerchantAccount(deps, input, plan)

  const now = deps.clock.now()
  const id = deps.ids.create('po')
  const reference = request.reference ?? id.replace(/^po_/, 'PO-').toUpperCase()
  const day = now.toISOString().slice(0, 10)
  // The reservation's id is chosen here so the payout row is written with it, not updated after.
  const ledgerTransactionId = deps.ids.create('ltx')
  const outcome = await inTransaction(deps.db, async (trx) => {
    const inserted = await trx
      .insertInto('payouts')
      .values({
        id,
        merchant_id: input.merchantId,
        environment: input.environment,
        reference,
        request_hash: requestHash,
        method: plan.kind === 'crypto' ? 'crypto' : 'fiat',
        kind: plan.kind,
        status: 'pending',
        currency: plan.currency,
        amount: plan.amount,
        fee: plan.fee,
        total: plan.amount + plan.fee,
        target_currency: plan.targetCurrency,
        target_amount: plan.targetAmount,
        rate: plan.rate,
        narration: request.narration ?? '',
        recipient_id: recipient.id,
        recipient: JSON.stringify({ id: recipient.id, type: recipient.type, details: recipient.details }),
        channel: 'API',
        quote_id: plan.quoteId,
        webhook_url: request.webhookUrl ?? null,
        response_format: input.format,
        usd_equivalent: plan.usdEquivalent,
        usage_day: day,
        ledger_transaction_id: ledgerTransactionId,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'reference']).doNothing())
      .returningAll()
      .executeTakeFirst()
    if (!inserted) {
      // Another request with this reference committed first (it held the key until then).
      return { existing: await findByReference({ db: trx }, input, reference) }
    }
    if (plan.quoteId !== null) {
      await claimQuote(trx, input, plan.quoteId, id, now)
    }
    // Backstop: if this process stops before handing the payout to its provider, the job does it.
    await enqueueJob(trx, deps, {
      kind: reconcilePayoutJob,
      payload: { payoutId: id, attempt: 0 },
      runAt: new Date(now.getTime() + deps.settings.payouts.submitGraceMs),
      key: `${id}:0`,
    })
    // The merchant's daily-usage row and ledger account are the contended rows: locked last, usage
    // first (settlePayout's void takes them in the same order), so they are held for as few
    // statements as possible before the commit. The ledger claims its idempotency key before it
    // locks the accounts, and the payout row already carries the reservation's id, so the accounts
    // are held for the counters, the transfers and the balance transactions only; a balance or
    // limit refusal rolls everything back.
    await reserveDailyUsage(trx, input, { day, amount: plan.usdEquivalent, limit: dailyLimit })
    const ledger = await createPendingTransfer(
      { db: trx, ids: deps.ids, clock: deps.clock },
      {
        environment: input.environment,
        idempotencyKey: `payout:${id}`,
        transactionId: ledgerTransactionId,
        legs: plan.legs,
        source: 'payout',
        sourceId: id,
        sourceReference: reference,
        description: `Payout to ${recipient.label}`,
      },
    )
    if (ledger.id !== ledgerTransactionId) {
      throw new AppError('internal_error', { message: `payout ${id}: ledger key payout:${id} already used` })
    }
    const payout = inserted
    return { payout }
  })
  if ('existing' in outcome) {
    if (!outcome.existing) {
      throw new AppError('internal_error', { message: `payout reference ${reference} vanished` })
    }
    return { payout: assertSameRequest(outcome.existing, requestHash), created: false }
  }
  return { payout: outcome.payout, created: true }
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

async function assertMerchantAccount(deps: Deps, input: CreatePayoutInput, plan: Plan): Promise<void> {
  const account = await deps.db
    .selectFrom('ledger_accounts')
    .select('id')
    .where('environment', '=', input.environment)
    .where('code', '=', merchantAccount(input.merchantId))
    .where('currency', '=', plan.currency)
    .executeTakeFirst()
  if (!account) {
    throw new AppError('insufficient_balance', {
      message: `Insufficient ${plan.currency} balance`,
      context: { param: 'amount' },
    })
  }
}

async function claimQuote(
  trx: Deps['db'],
  input: CreatePayoutInput,
  quoteId: string,
  payoutId: string,
  now: Date,
): Promise<void> {
  const claimed = await trx
    .updateTable('payout_quotes')
    .set({ payout_id: payoutId, used_at: now })
    .where('id', '=', quoteId)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('payout_id', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst()
  if (claimed) {
    return
  }
  const quote = await trx
    .selectFrom('payout_quotes')
    .select(['payout_id', 'expires_at'])
    .where('id', '=', quoteId)
    .executeTakeFirstOrThrow()
  if (quote.payout_id !== null) {
    throw new AppError('quote_already_used', {
      message: `Quote ${quoteId} was already used by payout ${quote.payout_id}`,
      context: { param: 'quoteId' },
    })
  }
  throw new AppError('quote_expired', {
    message: `Quote ${quoteId} expired at ${quote.expires_at.toISOString()}; ask for a new one`,
    context: { param: 'quoteId' },
  })
}

// One conditional upsert: Postgres re-checks the condition on the locked row, so concurrent payouts
// never push a day past its limit.
async function reserveDailyUsage(
  trx: Deps['db'],
  input: CreatePayoutInput,
  usage: { day: string; amount: bigint; limit: bigint },
): Promise<void> {
  const exceeded = () =>
    new AppError('daily_limit_exceeded', {
      message: 'This payout would exceed the daily payout limit',
      context: { param: 'amount', details: { limitUsd: formatUsd(usage.limit) } },
    })
  if (usage.amount > usage.limit) {
    throw exceeded()
  }
  const row = await trx
    .insertInto('payout_daily_usage')
    .values({
      merchant_id: input.merchantId,
      environment: input.environment,
      day: usage.day,
      used: usage.amount,
    })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'environment', 'day'])
        .doUpdateSet({ used: sql`payout_daily_usage.used + excluded.used` })
        .where(sql<boolean>`payout_daily_usage.used + excluded.used <= ${usage.limit.toString()}::numeric`),
    )
    .returning('used')
    .executeTakeFirst()
  if (!row) {
    throw exceeded()
  }
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
