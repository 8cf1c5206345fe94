import type { Deps } from '../deps.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { postTransaction } from '../ledger/post-transaction.js'
import type { IncomingTransfer, IncomingTransferHandler } from '../rails/types.js'
import type { ChainName } from '../reference/chains.js'
import { rescale, toX402Legs, toX402Posting } from './x402-ledger.js'

type HandlerDeps = Pick<Deps, 'rails' | 'ids' | 'clock'>

/**
 * Settles a *pending* x402 transaction when the chain confirms its transfer (docs/x402-merchant.md):
 * a watcher's report of a transfer to an x402 address, delivered in the transaction that records it.
 * The row must be the address owner's and match the transfer (recipient, asset, amount); it becomes
 * `confirmed` and, when it credits the balance, posts the same ledger credit a settle would (same
 * idempotency key, so once). A reverted transfer marks it `failed`. Anything else changes nothing.
 */
export function createX402TransferHandler(deps: HandlerDeps): IncomingTransferHandler {
  return async (db, transfer) => {
    if (transfer.status === 'seen') {
      return
    }
    const row = await db
      .selectFrom('x402_transactions')
      .selectAll()
      .where('environment', '=', transfer.environment)
      .where('network', '=', transfer.network)
      .where('tx_hash', '=', transfer.txHash)
      .where('status', '=', 'pending')
      .forUpdate()
      .executeTakeFirst()
    if (!row || !matches(row, transfer)) {
      return
    }
    if (transfer.status === 'reverted') {
      await db
        .updateTable('x402_transactions')
        .set({ status: 'failed', error_reason: 'reverted' })
        .where('id', '=', row.id)
        .execute()
      return
    }
    await db
      .updateTable('x402_transactions')
      .set({
        status: 'confirmed',
        block_number: transfer.blockNumber === null ? null : String(transfer.blockNumber),
      })
      .where('id', '=', row.id)
      .execute()
    const currency = deps.rails.chains.findAsset(
      row.environment,
      row.chain as ChainName,
      row.asset,
    )?.ledgerCurrency
    if (!row.credited || !currency) {
      return
    }
    const scale = ledgerCurrencies[currency]
    const legs = toX402Legs({
      chain: row.chain,
      asset: row.asset,
      merchantId: row.merchant_id,
      currency,
      gross: rescale(BigInt(row.amount), transfer.decimals, scale),
      fee: rescale(BigInt(row.fee), transfer.decimals, scale),
    })
    if (legs.length === 0) {
      return
    }
    const posting = toX402Posting({
      environment: row.environment,
      network: row.network,
      chain: row.chain,
      txHash: row.tx_hash,
      rowId: row.id,
    })
    await postTransaction({ db, ids: deps.ids, clock: deps.clock }, { ...posting, legs })
  }
}

/** Subscribes {@link createX402TransferHandler} to the watchers' reports on x402 addresses; returns the unsubscribe. */
export function registerX402Handlers(deps: HandlerDeps): () => void {
  return deps.rails.incoming.subscribe('x402', createX402TransferHandler(deps))
}

// The pending row is the address owner's and names the transfer the chain shows.
function matches(
  row: { merchant_id: string; pay_to: string; asset: string; amount: unknown },
  transfer: IncomingTransfer,
): boolean {
  return (
    row.merchant_id === transfer.address.merchantId &&
    transfer.address.purpose === 'x402' &&
    row.pay_to === transfer.address.address &&
    row.asset === transfer.asset &&
    BigInt(String(row.amount)) === transfer.amount
  )
}
