import { getEvmChainId } from '@tollgate/core'
import { createEvmHttpTransport } from '@tollgate/evm'
import { toSafeSmartAccount } from 'permissionless/accounts'
import { createPublicClient, defineChain, type Hex, type LocalAccount } from 'viem'
import { entryPoint07Address, type SmartAccount } from 'viem/account-abstraction'
import { toEvmAccount } from './create-scheme-clients.js'

/** Parameters of {@link createSafeAccount}. */
export type CreateSafeAccountParameters = {
  /** The Safe's single owner: a 0x private key or a viem LocalAccount. */
  owner: Hex | LocalAccount
  /** CAIP-2 network the account signs for (`eip155:84532`). */
  network: string
  /** RPC URL of that network: the address is read from the Safe proxy factory, deployment from `eth_getCode`. */
  rpcUrl: string
  /** Salt nonce of the Safe's CREATE2 address (default 0: one Safe per owner). */
  saltNonce?: bigint
  /** Polling interval of the RPC client in ms (default 1000). */
  pollingInterval?: number
}

/** The owner's Safe 1.4.1 smart account (threshold 1, Safe4337Module 0.3.0, EntryPoint v0.7) on `network`, deployed or not. */
export function createSafeAccount(parameters: CreateSafeAccountParameters): Promise<SmartAccount> {
  const chain = defineChain({
    id: getEvmChainId(parameters.network),
    name: parameters.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [parameters.rpcUrl] } },
  })
  const client = createPublicClient({
    chain,
    transport: createEvmHttpTransport(parameters.rpcUrl),
    pollingInterval: parameters.pollingInterval ?? 1000,
  })
  return toSafeSmartAccount({
    client,
    owners: [toEvmAccount(parameters.owner)],
    version: '1.4.1',
    entryPoint: { address: entryPoint07Address, version: '0.7' },
    saltNonce: parameters.saltNonce ?? 0n,
  })
}
