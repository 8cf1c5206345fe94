import { AppError, getEvmChainId, getSchemeName, type SchemeClient } from '@tollgate/core'
import { getAddress } from 'viem'
import type { Eip3009Payload } from '../payloads.js'
import { type EvmPayer, getEvmPayerAddress } from '../signatures/evm-payer.js'
import { createRandomBytes32 } from '../signatures/random.js'
import { transferWithAuthorizationTypes } from '../signatures/typed-data.js'

/** Options of {@link createEip3009Client}. */
export type Eip3009ClientOptions = {
  /** The payer: a viem LocalAccount (`privateKeyToAccount`) or a smart account (ERC-1271 / ERC-6492). */
  account: EvmPayer
  /** Pay only on this CAIP-2 network (a smart account signs for the chain of its client); default any EVM network. */
  network?: string
  /** Clock in milliseconds (default `Date.now`). */
  now?: () => number
}

/**
 * The payer side of x402 `exact` on EVM via EIP-3009: signs a `TransferWithAuthorization` of
 * exactly `amount` to `payTo`, valid from 0 until now + `maxTimeoutSeconds`, with a random nonce.
 */
export function createEip3009Client(options: Eip3009ClientOptions): SchemeClient {
  const { account, now = Date.now } = options
  const payerAddress = (network: string) => getEvmPayerAddress(account, network, options.network)
  return {
    name: 'eip3009',
    canPay: (requirements) =>
      getSchemeName(requirements) === 'eip3009' &&
      payerAddress(requirements.network) !== undefined &&
      typeof requirements.extra?.name === 'string' &&
      typeof requirements.extra?.version === 'string',
    getAddress: payerAddress,
    async createPayload(requirements) {
      const { name, version } = requirements.extra ?? {}
      if (typeof name !== 'string' || typeof version !== 'string') {
        throw new AppError('evm_missing_eip712_domain', {
          context: { network: requirements.network, asset: requirements.asset },
          message: 'requirements lack the token’s EIP-712 extra.name / extra.version',
        })
      }
      const authorization = {
        from: account.address,
        to: getAddress(requirements.payTo),
        value: requirements.amount,
        validAfter: '0',
        validBefore: String(Math.floor(now() / 1000) + requirements.maxTimeoutSeconds),
        nonce: createRandomBytes32(),
      }
      const signature = await account.signTypedData({
        domain: {
          name,
          version,
          chainId: getEvmChainId(requirements.network),
          verifyingContract: getAddress(requirements.asset),
        },
        types: transferWithAuthorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: {
          ...authorization,
          value: BigInt(authorization.value),
          validAfter: 0n,
          validBefore: BigInt(authorization.validBefore),
        },
      })
      const payload: Eip3009Payload = { signature, authorization }
      return payload
    },
  }
}
