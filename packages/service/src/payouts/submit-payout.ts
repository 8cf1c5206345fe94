import { isAppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { enqueueJob } from '../jobs/enqueue-job.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { CryptoSend, FiatTransfer, MobileMoneyResolution } from '../rails/types.js'
import type { PayoutRow } from './payout.js'
import { maxReconcileAttempts, type ReconcilePayoutPayload, reconcilePayoutJob } from './payout-jobs.js'
import { type PayoutOutcome, settlePayout } from './settle-payout.js'

/**
 * Hands a pending payout to its provider: marks it `processing` (event `payout.processing`), then
 * calls the bank, mobile-money provider or crypto sender with the payout id as idempotency key and
 * records the answer. A timeout or provider error leaves it processing and queues a re-query, so a
 * payout is never paid twice. Returns the payout afterwards (undefined when it was not pending).
 */
export async function submitPayout(deps: Deps, input: { payoutId: string }): Promise<PayoutRow | undefined> {
  const marked = await settlePayout(deps.db, deps, {
    payoutId: input.payoutId,
    outcome: { status: 'processing' },
    onlyFrom: 'pending',
  })
  if (marked?.status !== 'processing') {
    return marked
  }
  return sendToProvider(deps, marked, 1)
}

/**
 * The job of {@link reconcilePayoutJob}: submits a payout still pending, re-queries a processing one
 * (re-sending it, idempotently, when the provider has never heard of it) and schedules the next look
 * while the provider has no final answer. Final payouts are left alone.
 */
export async function reconcilePayout(deps: Deps, payload: ReconcilePayoutPayload): Promise<void> {
  const payout = await deps.db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', payload.payoutId)
    .executeTakeFirst()
  if (!payout || payout.status === 'success' || payout.status === 'failed') {
    return
  }
  if (payout.status === 'pending') {
    await submitPayout(deps, { payoutId: payout.id })
    return
  }
  let outcome: PayoutOutcome
  try {
    outcome = (await queryProvider(deps, payout)) ?? (await callProvider(deps, payout))
  } catch (error) {
    deps.logger.warn({ err: error, payoutId: payout.id }, 'payout provider re-query failed')
    await scheduleReconcile(deps, payout.id, payload.attempt + 1)
    return
  }
  const settled = await settlePayout(deps.db, deps, { payoutId: payout.id, outcome })
  if (settled?.status === 'processing') {
    await scheduleReconcile(deps, payout.id, payload.attempt + 1)
  }
}

/**
 * Subscribes payouts to the rails' asynchronous answers (bank and mobile-money callbacks, settled
 * crypto sends), each recorded in the transaction the rail delivers it in. Returns the unsubscriber.
 */
export function subscribePayoutRails(deps: Deps): () => void {
  const onFiat = async (db: Deps['db'], transfer: FiatTransfer) => {
    await settlePayout(db, deps, { payoutId: transfer.id, outcome: fromFiatTransfer(transfer) })
  }
  const stops = [
    deps.rails.banks.onTransferUpdate(onFiat),
    deps.rails.mobileMoney.onTransferUpdate(onFiat),
    deps.rails.crypto.onSettled(async (db, send) => {
      await settlePayout(db, deps, { payoutId: send.idempotencyKey, outcome: fromCryptoSend(send) })
    }),
  ]
  return () => {
    for (const stop of stops) {
      stop()
    }
  }
}

async function sendToProvider(
  deps: Deps,
  payout: PayoutRow,
  attempt: number,
): Promise<PayoutRow | undefined> {
  let outcome: PayoutOutcome
  try {
    outcome = await callProvider(deps, payout)
  } catch (error) {
    if (isAppError(error, 'validation_error') || isAppError(error, 'recipient_not_found')) {
      // The provider refused the transfer before moving any money.
      outcome = { status: 'failed', failureReason: error.message }
    } else {
      deps.logger.warn({ err: error, payoutId: payout.id }, 'payout provider did not answer; re-query queued')
      await scheduleReconcile(deps, payout.id, attempt)
      return payout
    }
  }
  if (outcome.status === 'processing') {
    return recordProcessing(deps, payout, outcome.txHash)
  }
  return settlePayout(deps.db, deps, { payoutId: payout.id, outcome })
}

// The provider has the payout and no final answer yet (a crypto send with its first hash): only the
// hash changes, with no event and no ledger work, so one conditional statement does instead of a
// locking transaction. A payout settled meanwhile is returned as it stands.
async function recordProcessing(
  deps: Deps,
  payout: PayoutRow,
  txHash: string | null | undefined,
): Promise<PayoutRow | undefined> {
  const updated = await deps.db
    .updateTable('payouts')
    .set({ tx_hash: txHash ?? payout.tx_hash, updated_at: deps.clock.now() })
    .where('id', '=', payout.id)
    .where('status', '=', 'processing')
    .returningAll()
    .executeTakeFirst()
  return updated ?? deps.db.selectFrom('payouts').selectAll().where('id', '=', payout.id).executeTakeFirst()
}

// Provider calls are idempotent on the payout id: calling again returns the transfer already made.
async function callProvider(deps: Deps, payout: PayoutRow): Promise<PayoutOutcome> {
  const details = payout.recipient.details
  const narration = payout.narration || `Payout ${payout.reference}`
  const amount = BigInt(payout.target_amount)
  switch (payout.kind) {
    case 'local_fiat': {
      const transfer = await deps.rails.banks.transfer({
        id: payout.id,
        amount,
        currency: 'NGN',
        account: {
          accountNumber: details.accountNumber ?? '',
          accountName: details.accountName ?? '',
          bankCode: details.bankCode ?? '',
          bankName: details.bankName ?? '',
        },
        narration,
      })
      return fromFiatTransfer(transfer)
    }
    case 'cross_border': {
      const transfer = await deps.rails.mobileMoney.transfer({
        id: payout.id,
        amount,
        currency: payout.target_currency as 'KES' | 'GHS',
        account: details as unknown as MobileMoneyResolution,
        narration,
      })
      return fromFiatTransfer(transfer)
    }
    case 'crypto': {
      const chain = details.chain as Parameters<Deps['rails']['chains']['findAsset']>[1]
      const asset = deps.rails.chains.findAsset(payout.environment, chain, payout.currency)
      const scale = ledgerCurrencies[payout.currency as 'USDT' | 'USDC']
      const decimals = asset?.decimals ?? scale
      const send = await deps.rails.crypto.send({
        environment: payout.environment,
        chain,
        asset: payout.currency,
        to: details.address ?? '',
        amount:
          decimals >= scale
            ? amount * 10n ** BigInt(decimals - scale)
            : amount / 10n ** BigInt(scale - decimals),
        idempotencyKey: payout.id,
      })
      return fromCryptoSend(send)
    }
  }
}

// The provider's current answer, or undefined when it has no transfer with this id.
async function queryProvider(deps: Deps, payout: PayoutRow): Promise<PayoutOutcome | undefined> {
  if (payout.kind === 'crypto') {
    const send = await deps.rails.crypto.get(payout.id, payout.environment)
    return send && fromCryptoSend(send)
  }
  const provider = payout.kind === 'local_fiat' ? deps.rails.banks : deps.rails.mobileMoney
  try {
    return fromFiatTransfer(await provider.getTransfer(payout.id))
  } catch (error) {
    if (isAppError(error, 'not_found')) {
      return undefined
    }
    throw error
  }
}

function fromFiatTransfer(transfer: FiatTransfer): PayoutOutcome {
  return transfer.status === 'failed'
    ? { status: 'failed', failureReason: transfer.failureReason ?? 'The provider rejected the transfer' }
    : { status: transfer.status }
}

function fromCryptoSend(send: CryptoSend): PayoutOutcome {
  switch (send.status) {
    case 'confirmed':
      return { status: 'success', txHash: send.txHash }
    case 'failed':
      return {
        status: 'failed',
        failureReason: send.failureReason ?? 'The transaction failed',
        txHash: send.txHash,
      }
    default:
      return { status: 'processing', txHash: send.txHash }
  }
}

async function scheduleReconcile(deps: Deps, payoutId: string, attempt: number): Promise<void> {
  if (attempt > maxReconcileAttempts) {
    deps.logger.error({ payoutId }, 'payout still processing after every re-query; waiting for the provider')
    return
  }
  const delay = deps.settings.payouts.requeryDelayMs * 2 ** (attempt - 1)
  await enqueueJob(deps.db, deps, {
    kind: reconcilePayoutJob,
    payload: { payoutId, attempt },
    runAt: new Date(deps.clock.now().getTime() + delay),
    key: `${payoutId}:${attempt}`,
  })
}
