import { getEvmChainId, getSchemeName, type SchemeClient } from '@tollgate/core'
import { getAddress } from 'viem'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import type { Permit2Payload } from '../payloads.js'
import { type EvmPayer, getEvmPayerAddress } from '../signatures/evm-payer.js'
import { createRandomUint256 } from '../signatures/random.js'
import { permitWitnessTransferFromTypes } from '../signatures/typed-data.js'

/** Options of {@link createPermit2Client}. */
export type Permit2ClientOptions = {
  /** The payer's key; it must have approved Permit2 for the token once (see `approvePermit2`). */
  account: EvmPayer
  /** Pay only on this CAIP-2 network (a smart account signs for the chain of its client); default any EVM network. */
  network?: string
  /** Clock in milliseconds (default `Date.now`). */
  now?: () => number
}

/**
 * The payer side of x402 `exact` on EVM via Permit2: signs a `PermitWitnessTransferFrom` of
 * exactly `amount` of `asset` with the x402 exact proxy as spender, a random unordered nonce,
 * deadline now + `maxTimeoutSeconds` and the witness `{ to: payTo, validAfter: 0 }`.
 */
export function createPermit2Client(options: Permit2ClientOptions): SchemeClient {
  const { account, now = Date.now } = options
  const payerAddress = (network: string) => getEvmPayerAddress(account, network, options.network)
  return {
    name: 'permit2',
    canPay: (requirements) =>
      getSchemeName(requirements) === 'permit2' && payerAddress(requirements.network) !== undefined,
    getAddress: payerAddress,
    async createPayload(requirements) {
      const permit2Authorization = {
        from: account.address,
        permitted: { token: getAddress(requirements.asset), amount: requirements.amount },
        spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        nonce: createRandomUint256(),
        deadline: String(Math.floor(now() / 1000) + requirements.maxTimeoutSeconds),
        witness: { to: getAddress(requirements.payTo), validAfter: '0' },
      }
      const signature = await account.signTypedData({
        domain: {
          name: 'Permit2',
          chainId: getEvmChainId(requirements.network),
          verifyingContract: PERMIT2_ADDRESS,
        },
        types: permitWitnessTransferFromTypes,
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: {
            token: permit2Authorization.permitted.token,
            amount: BigInt(permit2Authorization.permitted.amount),
          },
          spender: permit2Authorization.spender,
          nonce: BigInt(permit2Authorization.nonce),
          deadline: BigInt(permit2Authorization.deadline),
          witness: { to: permit2Authorization.witness.to, validAfter: 0n },
        },
      })
      const payload: Permit2Payload = { signature, permit2Authorization }
      return payload
    },
  }
}
