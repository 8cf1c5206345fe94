import type { Deps } from '../../deps.js'
import { custodyAccount, treasuryCustodyAccount } from '../../ledger/chart-of-accounts.js'
import { ledgerCurrencies } from '../../ledger/ledger-currencies.js'
import { postTransaction } from '../../ledger/post-transaction.js'
import { rescale } from '../../payments/session-money.js'
import type { ChainRegistry, CryptoSend, Db } from '../types.js'

/**
 * The ledger legs of a confirmed sweep (docs/rails.md "Sweeps"), in the transaction that records
 * it: `custody:{chain}-treasury:{asset}` debited and `custody:{chain}:{asset}` (deposit addresses)
 * credited by the amount, so custody moves from the deposit addresses to the treasury and merchant
 * balances do not change. Idempotent on `sweep:{send id}`. Assets without a ledger currency
 * (native coins) have no custody accounts and post nothing.
 */
export async function postSweepLedger(
  deps: Pick<Deps, 'ids' | 'clock'>,
  db: Db,
  chains: ChainRegistry,
  send: CryptoSend,
): Promise<void> {
  if (send.status !== 'confirmed' || !send.idempotencyKey.startsWith('sweep:')) {
    return
  }
  const asset = chains.findAsset(send.environment, send.chain, send.asset)
  const currency = asset?.ledgerCurrency
  if (!asset || !currency) {
    return
  }
  const amount = rescale(send.amount, asset.decimals, ledgerCurrencies[currency])
  if (amount <= 0n) {
    return
  }
  await postTransaction(
    { db, ids: deps.ids, clock: deps.clock },
    {
      environment: send.environment,
      idempotencyKey: `sweep:${send.id}`,
      legs: [
        {
          debit: treasuryCustodyAccount(send.chain, send.asset),
          credit: custodyAccount(send.chain, send.asset),
          amount,
          currency,
        },
      ],
      source: 'sweep',
      sourceId: send.id,
      txHash: send.txHash ?? undefined,
      description: `Sweep of ${send.asset} to the ${send.chain} treasury`,
    },
  )
}
