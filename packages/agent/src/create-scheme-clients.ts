import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  type KeyPairSigner,
} from '@solana/kit'
import { AppError, isSolanaNetwork, type SchemeClient } from '@tollgate/core'
import { createEip3009Client, createPermit2Client } from '@tollgate/evm'
import { createSolanaClient, type SolanaClientRpc } from '@tollgate/svm'
import type { Hex, LocalAccount } from 'viem'
import type { SmartAccount } from 'viem/account-abstraction'
import { privateKeyToAccount } from 'viem/accounts'
import type { Wallets } from './types.js'

/**
 * Builds the scheme clients for the agent's keys: `eip3009` and `permit2` for an EVM key, and
 * `solana` for a Solana keypair on every Solana network in `rpcs`.
 */
export async function createSchemeClients(wallets: Wallets): Promise<SchemeClient[]> {
  const clients: SchemeClient[] = []
  if (isEvmKey(wallets.evm)) {
    const account = toEvmAccount(wallets.evm)
    clients.push(createEip3009Client({ account }), createPermit2Client({ account }))
  } else if (wallets.evm !== undefined) {
    for (const account of [wallets.evm].flat()) {
      const network = getSmartAccountNetwork(account)
      clients.push(createEip3009Client({ account, network }), createPermit2Client({ account, network }))
    }
  }
  if (wallets.solana !== undefined) {
    const signer = await toSolanaSigner(wallets.solana)
    const rpcs: Record<string, SolanaClientRpc> = {}
    for (const [network, url] of Object.entries(wallets.rpcs ?? {})) {
      if (isSolanaNetwork(network)) {
        rpcs[network] = createSolanaRpc(url)
      }
    }
    clients.push(createSolanaClient({ signer, rpcs }))
  }
  return clients
}

/** Whether `evm` is a key the agent holds itself (a 0x private key or a LocalAccount), not smart accounts. */
export function isEvmKey(evm: Wallets['evm']): evm is Hex | LocalAccount {
  return typeof evm === 'string' || (evm !== undefined && 'type' in evm && evm.type === 'local')
}

/** The CAIP-2 network a smart account signs for: the chain of its client. */
function getSmartAccountNetwork(account: SmartAccount): string {
  const chainId = account.client.chain?.id
  if (chainId === undefined) {
    throw new AppError('invalid_request', {
      context: { issues: { evm: 'the smart account’s client has no chain' } },
      message: 'a smart account pays on the chain of its client: create its client with a `chain`',
    })
  }
  return `eip155:${chainId}`
}

/** A viem account from a 0x private key, or the account itself. */
export function toEvmAccount(key: Hex | LocalAccount): LocalAccount {
  return typeof key === 'string' ? privateKeyToAccount(key) : key
}

/** A kit signer from a base58 64-byte secret key (the Solana CLI / Phantom export format) or a signer. */
export async function toSolanaSigner(key: string | KeyPairSigner): Promise<KeyPairSigner> {
  return typeof key === 'string' ? createKeyPairSignerFromBytes(getBase58Encoder().encode(key.trim())) : key
}
