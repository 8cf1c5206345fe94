import { AppError } from '@tollgate/core'
import { isHash } from 'viem'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { MerchantX402Request } from './parse-x402-request.js'

/** What the chain shows of a settled x402 payment: whether it reached the confirmation count, and its block. */
export type VerifiedX402Transfer = { confirmed: boolean; blockNumber: bigint | null }

const solanaSignature = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/

/**
 * Checks on the chain, never in the facilitator's answer, that `txHash` moved the payment: a
 * transfer of the requirements' token to their payTo of exactly their amount, read as the watchers
 * and agent payments on sessions read transactions (`rails.incoming.readTransaction`). 502
 * `settlement_unverified` when the chain shows no such transfer (a made-up or unrelated hash, a
 * failed transaction); `confirmed` when it has the chain's confirmation count.
 */
export async function verifyX402Transfer(
  deps: Pick<Deps, 'rails'>,
  input: { environment: KeyEnvironment; parsed: MerchantX402Request; txHash: string },
): Promise<VerifiedX402Transfer> {
  const { parsed, txHash } = input
  const wellFormed = parsed.entry.family === 'evm' ? isHash(txHash) : solanaSignature.test(txHash)
  const transfers = wellFormed
    ? await deps.rails.incoming.readTransaction({
        environment: input.environment,
        chain: parsed.entry.chain,
        txHash,
      })
    : []
  const recipient = parsed.entry.family === 'evm' ? parsed.payTo.toLowerCase() : parsed.payTo
  const match = transfers.find(
    (t) =>
      t.asset === parsed.asset.symbol &&
      (parsed.entry.family === 'evm' ? t.to.toLowerCase() : t.to) === recipient &&
      t.amount === parsed.amount,
  )
  if (!match) {
    throw new AppError('settlement_unverified', {
      message: `The facilitator reported transaction ${txHash.slice(0, 100)}, but the chain shows no transfer of this payment in it`,
      context: { details: { errorReason: 'transfer_not_on_chain', transaction: txHash.slice(0, 100) } },
    })
  }
  return { confirmed: match.confirmations >= parsed.entry.confirmations, blockNumber: match.blockNumber }
}
