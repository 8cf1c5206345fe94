import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  type KeyPairSigner,
} from '@solana/kit'
import { isSolanaNetwork, type SchemeClient } from '@tollgate/core'
import { createEip3009Client, createPermit2Client } from '@tollgate/evm'
import { createSolanaClient, type SolanaClientRpc } from '@tollgate/svm'
import type { Hex, LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Wallets } from './types.js'

/**
 * Builds the scheme clients for the agent's keys: `eip3009` and `permit2` for an EVM key, and
 * `solana` for a Solana keypair on every Solana network in `rpcs`.
 */
export async function createSchemeClients(wallets: Wallets): Promise<SchemeClient[]> {
  const clients: SchemeClient[] = []
  if (wallets.evm !== undefined) {
    const account = toEvmAccount(wallets.evm)
    clients.push(createEip3009Client({ account }), createPermit2Client({ account }))
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

/** A viem account from a 0x private key, or the account itself. */
export function toEvmAccount(key: Hex | LocalAccount): LocalAccount {
  return typeof key === 'string' ? privateKeyToAccount(key) : key
}

/** A kit signer from a base58 64-byte secret key (the Solana CLI / Phantom export format) or a signer. */
export async function toSolanaSigner(key: string | KeyPairSigner): Promise<KeyPairSigner> {
  return typeof key === 'string' ? createKeyPairSignerFromBytes(getBase58Encoder().encode(key.trim())) : key
}
