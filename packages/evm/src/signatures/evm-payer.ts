import { isEvmNetwork } from '@tollgate/core'
import type { Address, LocalAccount } from 'viem'

/**
 * What signs an x402 EVM payment: a viem `LocalAccount` (ECDSA), or a smart account such as
 * permissionless' `toSafeSmartAccount` (ERC-1271 signatures once deployed, ERC-6492-wrapped before).
 */
export type EvmPayer = { address: Address; signTypedData: LocalAccount['signTypedData'] }

/** The payer's address on `network`: any EVM network, or only `only` (a smart account is bound to its chain). */
export function getEvmPayerAddress(payer: EvmPayer, network: string, only?: string): Address | undefined {
  if (!isEvmNetwork(network) || (only !== undefined && network !== only)) {
    return undefined
  }
  return payer.address
}
