import type { Deps } from '../deps.js'
import { custodyAccount } from '../ledger/chart-of-accounts.js'
import { isLedgerCurrency } from '../ledger/ledger-currencies.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { postPendingTransaction, voidPendingTransaction } from '../ledger/resolve-pending.js'
import type { Db, IncomingTransfer } from '../rails/types.js'
import type { DepositRow } from './deposit.js'
import { toStaticAddressResponse } from './deposit-account.js'
import {
  emitDepositEvent,
  findDepositBySource,
  insertDeposit,
  loadDepositTarget,
  settleDeposit,
} from './deposit-store.js'
import { formatUnits, planDepositCredit } from './plan-deposit-credit.js'

type HandlerDeps = Pick<Deps, 'ids' | 'clock' | 'rails' | 'settings' | 'logger'>

/**
 * The deposits' subscriber of incoming transfers (purpose `deposit`), run in the rails' recording
 * transaction `db`: `seen` records a pending deposit and a pending ledger credit, `confirmed` posts
 * it (recording it first if it was never seen), `reverted` voids it (never credited). Idempotent per
 * (transfer, status). See docs/deposits.md "Crypto deposits".
 */
export async function recordCryptoDeposit(
  deps: HandlerDeps,
  db: Db,
  transfer: IncomingTransfer,
): Promise<void> {
  if (transfer.address.purpose !== 'deposit') {
    return
  }
  const sourceKey = `incoming:${transfer.id}`
  let deposit = await findDepositBySource(db, { environment: transfer.environment, sourceKey })
  if (transfer.status === 'reverted') {
    if (deposit?.status === 'pending') {
      await failDeposit(deps, db, deposit, 'reverted')
    } else if (deposit?.status === 'completed') {
      deps.logger.error(
        { depositId: deposit.id, transferId: transfer.id },
        'a completed deposit was reverted',
      )
    }
    return
  }
  if (!deposit) {
    const created = await createCryptoDeposit(deps, db, transfer, sourceKey)
    if (!created) {
      return
    }
    deposit = created
  }
  if (transfer.status === 'confirmed' && deposit.status === 'pending') {
    await completeDeposit(deps, db, deposit)
  }
}

async function createCryptoDeposit(
  deps: HandlerDeps,
  db: Db,
  transfer: IncomingTransfer,
  sourceKey: string,
): Promise<DepositRow | undefined> {
  const target = await loadDepositTarget(db, {
    environment: transfer.environment,
    depositAccountId: transfer.address.ownerId,
  })
  if (!target) {
    deps.logger.warn(
      { transferId: transfer.id, ownerId: transfer.address.ownerId },
      'deposit address without a deposit account',
    )
    return undefined
  }
  const asset = deps.rails.chains.findAsset(transfer.environment, transfer.chain, transfer.asset)
  const ledgerCurrency = asset?.ledgerCurrency ?? (isLedgerCurrency(transfer.asset) ? transfer.asset : null)
  const amlCheck = transfer.fromAddress
    ? await deps.rails.screening.screen({
        chain: transfer.chain,
        address: transfer.fromAddress,
        txHash: transfer.txHash,
      })
    : 'pending'
  const credit = await planDepositCredit(deps, {
    db,
    merchantId: target.account.merchant_id,
    settlementCurrency: target.account.settlement_currency,
    source: {
      from: custodyAccount(transfer.chain, transfer.asset),
      asset: transfer.asset,
      ledgerCurrency,
      amount: transfer.amount,
      decimals: transfer.decimals,
    },
    ...(amlCheck === 'failed' ? { beneficiary: 'suspense' as const } : {}),
  })
  const id = deps.ids.create('dep')
  const ledger =
    credit.legs.length === 0
      ? null
      : await postTransaction(
          { ...deps, db },
          {
            environment: transfer.environment,
            idempotencyKey: `deposit:${sourceKey}`,
            legs: credit.legs,
            pending: true,
            source: 'deposit',
            sourceId: id,
            sourceReference: transfer.txHash,
            reference: id,
            description: `Deposit of ${formatUnits(transfer.amount, transfer.decimals)} ${transfer.asset} on ${transfer.chain}`,
            txHash: transfer.txHash,
          },
        )
  const identity = target.identities.find((i) => i.address_id === transfer.address.id)
  const deposit = await insertDeposit(db, deps, {
    id,
    target,
    type: 'crypto',
    sourceKey,
    credit,
    ledgerTransactionId: ledger?.id ?? null,
    txHash: transfer.txHash,
    chain: transfer.chain,
    crypto: {
      txHash: transfer.txHash,
      chain: transfer.chain,
      asset: transfer.asset,
      amount: formatUnits(transfer.amount, transfer.decimals),
      fromAddress: transfer.fromAddress,
      toAddress: transfer.toAddress,
      amlCheck,
      confirmations: transfer.confirmations,
      staticDepositAddress: identity
        ? toStaticAddressResponse(identity)
        : {
            chain: transfer.chain,
            address: transfer.address.address,
            createdAt: transfer.address.createdAt.toISOString(),
          },
    },
  })
  await emitDepositEvent(db, deps, deposit, target, 'deposit.pending')
  return deposit
}

async function completeDeposit(deps: HandlerDeps, db: Db, deposit: DepositRow): Promise<void> {
  if (deposit.ledger_transaction_id !== null) {
    await postPendingTransaction(
      { ...deps, db },
      { environment: deposit.environment, transactionId: deposit.ledger_transaction_id },
    )
  }
  const amlFailed = (deposit.crypto as { amlCheck?: string } | null)?.amlCheck === 'failed'
  await (amlFailed
    ? settleDeposit(deps, db, deposit, { status: 'failed', failureReason: 'aml_check_failed' })
    : settleDeposit(deps, db, deposit, { status: 'completed' }))
}

async function failDeposit(deps: HandlerDeps, db: Db, deposit: DepositRow, reason: string): Promise<void> {
  if (deposit.ledger_transaction_id !== null) {
    await voidPendingTransaction(
      { ...deps, db },
      { environment: deposit.environment, transactionId: deposit.ledger_transaction_id },
    )
  }
  await settleDeposit(deps, db, deposit, { status: 'failed', failureReason: reason })
}
