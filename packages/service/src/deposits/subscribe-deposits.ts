import type { Deps } from '../deps.js'
import { recordCryptoDeposit } from './record-crypto-deposit.js'
import { recordFiatDeposit } from './record-fiat-deposit.js'

/**
 * Subscribes the deposit recorders to the rails (incoming transfers with purpose `deposit`, inbound
 * NGN transfers into virtual accounts). Called once by the composition root; returns the unsubscribe.
 */
export function subscribeDeposits(
  deps: Pick<Deps, 'ids' | 'clock' | 'rails' | 'settings' | 'logger'>,
): () => void {
  const stopCrypto = deps.rails.incoming.subscribe('deposit', (db, transfer) =>
    recordCryptoDeposit(deps, db, transfer),
  )
  const stopFiat = deps.rails.virtualAccounts.onInboundTransfer((db, transfer) =>
    recordFiatDeposit(deps, db, transfer),
  )
  return () => {
    stopCrypto()
    stopFiat()
  }
}
