import { isEvmNetwork } from '@tollgate/core'
import type { Hex } from 'viem'
import type { SmartAccount } from 'viem/account-abstraction'
import { createSafeAccount } from './create-safe-account.js'

/** Smart-account types the CLI's `--smart-account` builds from the owner key. */
export const CLI_SMART_ACCOUNT_TYPES = ['safe'] as const

/**
 * The owner's smart account (a Safe 1.4.1, one owner, salt 0) on every EVM network of `rpcs`: the
 * address is read from the chain's Safe proxy factory, so each network needs its RPC URL.
 */
export function createCliSmartAccounts(owner: Hex, rpcs: Record<string, string>): Promise<SmartAccount[]> {
  const networks = Object.entries(rpcs).filter(([network]) => isEvmNetwork(network))
  return Promise.all(networks.map(([network, rpcUrl]) => createSafeAccount({ owner, network, rpcUrl })))
}
