import type { Address } from '@solana/kit'
import type { Devnet, DevnetAsset, DevnetWallet, FundParameters } from '../types.js'
import { deriveSolanaKeypair } from './derive-solana-keypair.js'
import { createInvalidParamsError } from './rpc-error.js'
import { createAccountMethods } from './rpc-methods-accounts.js'
import { createAdminMethods, createAirdropMethod } from './rpc-methods-admin.js'
import { createClusterMethods } from './rpc-methods-cluster.js'
import { createTransactionMethods } from './rpc-methods-transactions.js'
import { startRpcServer } from './rpc-server.js'
import { SolanaChain } from './solana-chain.js'
import {
  getSolanaFixtureTokens,
  mintToOwner,
  placeSolanaFixtureTokens,
  setLamports,
} from './solana-fixtures.js'

/** Solana devnet's CAIP-2 id, which the local chain answers to. */
export const SOLANA_DEVNET_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

/** Options of {@link startSolanaDevnet}: how many funded payers and SOL-only relayers (fee payers) to create. */
export type StartSolanaDevnetOptions = { payers?: number; relayers?: number }

/** A running Solana devnet; `advanceBlocks` produces empty blocks so tests can expire blockhashes. */
export type SolanaDevnet = Devnet & { advanceBlocks(count: number): void }

const LAMPORTS_PER_SOL = 1_000_000_000n
/** What each payer holds: 100 SOL and 1,000,000 of each token (6 decimals). */
const PAYER_LAMPORTS = 100n * LAMPORTS_PER_SOL
const PAYER_TOKENS = 1_000_000n * 1_000_000n
/** What each relayer holds: 100 SOL. */
const RELAYER_LAMPORTS = 100n * LAMPORTS_PER_SOL

/**
 * Starts LiteSVM in process behind a Solana JSON-RPC server on 127.0.0.1 (OS-assigned port), with USDC at
 * devnet USDC's mint, USDC2022 under Token-2022, USDT at `DEVNET_USDT_MINT`, and deterministic payer
 * and relayer keys.
 */
export async function startSolanaDevnet(options: StartSolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const chain = new SolanaChain()
  const tokens = getSolanaFixtureTokens()
  placeSolanaFixtureTokens(chain, tokens)

  const fund = async ({ address, asset, amount }: Omit<FundParameters, 'network'>) => {
    if (asset === undefined) {
      setLamports(chain, address as Address, amount)
      return
    }
    const token = tokens.find((t) => t.symbol === asset || t.mint === asset)
    if (!token) {
      throw createInvalidParamsError(`Invalid params: unknown asset ${asset} on ${SOLANA_DEVNET_NETWORK}`)
    }
    await mintToOwner(chain, token, address as Address, amount)
  }

  const wallets: DevnetWallet[] = []
  for (const [role, count] of [
    ['payer', options.payers ?? 2],
    ['relayer', options.relayers ?? 2],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const keypair = deriveSolanaKeypair(`solana:${role}:${i}`)
      setLamports(chain, keypair.address, role === 'payer' ? PAYER_LAMPORTS : RELAYER_LAMPORTS)
      if (role === 'payer') {
        for (const token of tokens) {
          await mintToOwner(chain, token, keypair.address, PAYER_TOKENS)
        }
      }
      wallets.push({
        network: SOLANA_DEVNET_NETWORK,
        role,
        address: keypair.address,
        privateKey: keypair.privateKey,
      })
    }
  }

  const server = await startRpcServer({
    ...createClusterMethods(chain),
    ...createAccountMethods(chain),
    ...createTransactionMethods(chain),
    requestAirdrop: createAirdropMethod(chain),
    ...createAdminMethods(chain, fund),
  })

  const assets: Record<string, DevnetAsset> = Object.fromEntries(
    tokens.map((t) => [
      t.symbol,
      {
        symbol: t.symbol,
        address: t.mint,
        decimals: t.decimals,
        transferMethods: ['solana'],
        tokenProgram: t.tokenProgram,
      },
    ]),
  )
  let stopped: Promise<void> | undefined
  return {
    networks: {
      [SOLANA_DEVNET_NETWORK]: { network: SOLANA_DEVNET_NETWORK, kind: 'svm', rpcUrl: server.url, assets },
    },
    wallets,
    fund: async (parameters: FundParameters) => {
      if (parameters.network !== SOLANA_DEVNET_NETWORK) {
        throw createInvalidParamsError(`Invalid params: unknown network ${parameters.network}`)
      }
      await fund(parameters)
    },
    advanceBlocks: (count: number) => chain.advanceBlocks(count),
    stop: () => {
      stopped ??= server.close()
      return stopped
    },
  }
}
