import { REASONS } from '@tollgate/core'
import { type Hex, parseAbiItem } from 'viem'
import type { ExactEvmNetwork } from '../exact/exact-evm-context.js'
import { decodeBool } from '../rpc/decode.js'
import { type ExpectedTransfer, hasTransferLog } from '../settle/await-settlement.js'
import type { PaymentProbe, PaymentUse } from '../settle/recover-settlement.js'
import { encodeAuthorizationState } from './eip3009-calldata.js'

const authorizationUsed = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
)
const authorizationCanceled = parseAbiItem(
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
)

/** An EIP-3009 payment as its recovery reads it on chain. */
export type Eip3009Recovery = { expected: ExpectedTransfer; nonce: Hex; validBefore: bigint }

/**
 * The chain reads that recover an EIP-3009 settlement: `authorizationState(from, nonce)`, expiry
 * at `validBefore` (the token requires `block.timestamp < validBefore`), and the token's
 * `AuthorizationUsed` / `AuthorizationCanceled` logs to find where the nonce went.
 */
export function createEip3009Probe(net: ExactEvmNetwork, payment: Eip3009Recovery): PaymentProbe {
  const { expected, nonce } = payment
  return {
    async isUsed() {
      // Alone in its aggregate3 as far as this payer goes: an earlier simulated transfer of the
      // same payer in the batch could mark the nonce used in that call only.
      const [state] = await net.batcher.run(
        [{ target: expected.token, callData: encodeAuthorizationState(expected.from, nonce) }],
        { conflict: { debit: expected.from.toLowerCase(), credit: expected.to.toLowerCase() } },
      )
      return decodeBool(state)
    },
    isExpiredAt: (chainTime) => chainTime >= payment.validBefore,
    async findUses(fromBlock, toBlock) {
      const filter = {
        address: expected.token,
        args: { authorizer: expected.from, nonce },
        fromBlock,
        toBlock,
      }
      const [used, canceled] = await Promise.all([
        net.client.getLogs({ ...filter, event: authorizationUsed }),
        net.client.getLogs({ ...filter, event: authorizationCanceled }),
      ])
      const uses = await Promise.all(
        used.map(async (log): Promise<PaymentUse> => {
          const receipt = await net.client.getTransactionReceipt({ hash: log.transactionHash })
          // The nonce is the payer's, not the payment's: a different authorization with the same
          // nonce spends it without this transfer, and then this payment can never happen.
          return receipt.status === 'success' && hasTransferLog(receipt.logs, expected)
            ? { kind: 'transfer', transaction: log.transactionHash }
            : { kind: 'void', message: "the payer's nonce was used by a different authorization" }
        }),
      )
      const cancels = canceled.map(
        (): PaymentUse => ({ kind: 'void', message: 'the payer canceled the authorization' }),
      )
      return [...uses, ...cancels]
    },
    reasons: { expired: REASONS.evmValidBefore, voided: REASONS.evmNonceAlreadyUsed },
  }
}
