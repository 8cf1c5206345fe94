import { AppError } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import { emitEvent } from '../events/emit-event.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import { hotAccountShard, merchantAccount } from '../ledger/chart-of-accounts.js'
import { formatLedgerAmount, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import { ensureLedgerAccounts } from '../ledger/lock-accounts.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { getSwapQuotation } from './create-swap-quotation.js'
import { type SwapQuotationRow, type SwapRow, toSwapResponse } from './to-swap-response.js'

/** Input of {@link executeSwap}. */
export type ExecuteSwapInput = {
  merchantId: string
  environment: KeyEnvironment
  quotationId: string
  /** Response format of the executing key (decides the event's shape). */
  format: ResponseFormat
  webhookUrl?: string | undefined
}

/**
 * Executes a quotation before it expires, once: claims it with a conditional UPDATE (concurrent
 * executions wait on the row and then find it executed), posts one linked ledger transaction
 * (source → `platform:fx`, `platform:fx` → merchant at the reference rate, the spread to
 * `platform:fees`), records the swap and emits `swap.completed`, all in one transaction.
 */
export async function executeSwap(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'settings'>,
  input: ExecuteSwapInput,
): Promise<{ swap: SwapRow; quotation: SwapQuotationRow }> {
  const quotation = await getSwapQuotation(deps, { ...input, id: input.quotationId })
  if (!quotation) {
    throw new AppError('not_found', {
      message: `Swap quotation ${input.quotationId} not found`,
      context: { param: 'quotationId' },
    })
  }
  const legs = toSwapLegs(input.merchantId, quotation)
  // Accounts are created outside the transaction, so the ledger never creates them under row locks.
  await ensureLedgerAccounts(deps, {
    environment: input.environment,
    refs: legs.flatMap((leg) => [
      { code: leg.debit, currency: leg.currency },
      { code: leg.credit, currency: leg.currency },
    ]),
  })
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now()
    const claimed = await trx
      .updateTable('swap_quotations')
      .set({ executed_at: now })
      .where('id', '=', quotation.id)
      .where('executed_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst()
    if (!claimed) {
      throw await toUnclaimableError(trx, quotation.id)
    }
    const swapId = deps.ids.create('swp')
    const from = claimed.from_currency as LedgerCurrency
    const swap = await trx
      .insertInto('swaps')
      .values({
        id: swapId,
        merchant_id: input.merchantId,
        environment: input.environment,
        quotation_id: claimed.id,
        from_currency: claimed.from_currency,
        to_currency: claimed.to_currency,
        source_amount: claimed.source_amount,
        target_amount: claimed.target_amount,
        fee: claimed.fee,
        rate: claimed.rate,
        status: 'completed',
        webhook_url: input.webhookUrl ?? null,
        response_format: input.format,
        created_at: now,
        completed_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await emitEvent(trx, deps, {
      merchantId: input.merchantId,
      environment: input.environment,
      type: 'swap.completed',
      format: input.format,
      data: { swap: toSwapResponse(swap, claimed) },
      webhookUrl: swap.webhook_url,
    })
    // The ledger goes last: it locks the shared platform:fx and platform:fees rows, which every
    // swap needs, so they are held only from here to the commit.
    await postTransaction(
      { ...deps, db: trx },
      {
        environment: input.environment,
        idempotencyKey: swapLedgerKey(claimed.id),
        legs,
        source: 'swap',
        sourceId: swapId,
        sourceReference: claimed.id,
        description: `Swap ${formatLedgerAmount(BigInt(claimed.source_amount), from)} ${from} to ${claimed.to_currency}`,
      },
    )
    return { swap, quotation: claimed }
  })
}

/** Idempotency key of a swap's ledger transaction: one per quotation. */
export function swapLedgerKey(quotationId: string): string {
  return `swap:${quotationId}`
}

/**
 * The ledger legs of a quotation: the source amount into `platform:fx`, the reference-rate amount
 * (target + spread) out of it to the merchant, and the spread from the merchant to `platform:fees`.
 * Both platform accounts are the shards the quotation id picks (docs/ledger.md, "Hot accounts").
 */
export function toSwapLegs(merchantId: string, quotation: SwapQuotationRow): LedgerLeg[] {
  const merchant = merchantAccount(merchantId)
  const fx = hotAccountShard('platform:fx', quotation.id)
  const fees = hotAccountShard('platform:fees', quotation.id)
  const from = quotation.from_currency as LedgerCurrency
  const to = quotation.to_currency as LedgerCurrency
  const target = BigInt(quotation.target_amount)
  const fee = BigInt(quotation.fee)
  const legs: LedgerLeg[] = [
    { debit: merchant, credit: fx, amount: BigInt(quotation.source_amount), currency: from },
    { debit: fx, credit: merchant, amount: target + fee, currency: to },
  ]
  if (fee > 0n) {
    legs.push({ debit: merchant, credit: fees, amount: fee, currency: to })
  }
  return legs
}

// Read after the conditional UPDATE found nothing: the row is committed in its final state by now.
async function toUnclaimableError(
  trx: Pick<Deps, 'db'>['db'],
  id: string,
): Promise<AppError<'quote_already_used' | 'quote_expired'>> {
  const row = await trx
    .selectFrom('swap_quotations')
    .select(['executed_at', 'expires_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  if (row.executed_at !== null) {
    return new AppError('quote_already_used', {
      message: `Swap quotation ${id} was already executed`,
      context: { param: 'quotationId' },
    })
  }
  return new AppError('quote_expired', {
    message: `Swap quotation ${id} expired at ${row.expires_at.toISOString()}; request a new quotation`,
    context: { param: 'quotationId' },
  })
}
