import type { Deps } from '../deps.js'
import type { AccountCode } from '../ledger/chart-of-accounts.js'
import { formatLedgerAmount } from '../ledger/ledger-currencies.js'
import { postTransaction } from '../ledger/post-transaction.js'
import type { Db, InboundFiatTransfer } from '../rails/types.js'
import { toVirtualAccountResponse } from './deposit-account.js'
import { findDepositBySource, insertDeposit, loadDepositTarget, settleDeposit } from './deposit-store.js'
import { planDepositCredit } from './plan-deposit-credit.js'

/** The ledger account of money received into NGN virtual accounts (the provider's bank account). */
export const virtualAccountBank: AccountCode = 'bank:virtual-accounts'

type HandlerDeps = Pick<Deps, 'ids' | 'clock' | 'rails' | 'settings' | 'logger'>

/**
 * The deposits' subscriber of inbound NGN transfers into virtual accounts, run in the provider's
 * recording transaction `db`: the provider's callback is final, so the deposit is recorded and
 * credited (single-phase) at once. Idempotent per inbound transfer. See docs/deposits.md.
 */
export async function recordFiatDeposit(
  deps: HandlerDeps,
  db: Db,
  transfer: InboundFiatTransfer,
): Promise<void> {
  const sourceKey = `inbound:${transfer.id}`
  if (await findDepositBySource(db, { environment: transfer.environment, sourceKey })) {
    return
  }
  const identity = await db
    .selectFrom('deposit_account_identities')
    .selectAll()
    .where('environment', '=', transfer.environment)
    .where('account_reference', '=', transfer.accountReference)
    .executeTakeFirst()
  const target =
    identity &&
    (await loadDepositTarget(db, {
      environment: transfer.environment,
      depositAccountId: identity.deposit_account_id,
    }))
  if (!identity || !target) {
    // Another consumer's virtual account (or none of ours): nothing to record here.
    return
  }
  const credit = await planDepositCredit(deps, {
    db,
    merchantId: target.account.merchant_id,
    settlementCurrency: target.account.settlement_currency,
    source: {
      from: virtualAccountBank,
      asset: 'NGN',
      ledgerCurrency: 'NGN',
      amount: transfer.amount,
      decimals: 2,
    },
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
            source: 'deposit',
            sourceId: id,
            sourceReference: transfer.reference,
            reference: id,
            description: `NGN deposit of ${formatLedgerAmount(transfer.amount, 'NGN')} from ${transfer.payer.accountName}`,
          },
        )
  const pending = await insertDeposit(db, deps, {
    id,
    target,
    type: 'fiat',
    sourceKey,
    credit,
    ledgerTransactionId: ledger?.id ?? null,
    txHash: null,
    chain: null,
    fiat: {
      reference: transfer.reference,
      method: 'bank_transfer',
      payer: transfer.payer,
      payee: {
        accountName: identity.account_name,
        accountNumber: identity.account_number,
        bankName: identity.bank_name,
        bankCode: identity.bank_code,
      },
      ngnVirtualAccount: toVirtualAccountResponse(identity),
    },
  })
  await settleDeposit(deps, db, pending, { status: 'completed' })
}
