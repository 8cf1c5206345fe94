import { type AssetRegistry, isEvmNetwork, type Network } from '@tollgate/core'
import type { Address, PublicClient } from 'viem'
import type { Relayer } from '../relayer/types.js'
import { getMulticallBatcher, type MulticallBatcher } from '../rpc/multicall-batcher.js'
import { type CodeCache, getCodeCache } from '../signatures/code-cache.js'

/**
 * The RPC capability the exact-EVM facilitators need (a viem PublicClient fits): `call` and
 * `getCode` for verify; blocks, transactions, receipts and logs to recover a settlement whose
 * transaction was dropped (see `recoverSettlement`).
 */
export type EvmFacilitatorClient = Pick<
  PublicClient,
  'call' | 'getCode' | 'getBlock' | 'getTransaction' | 'getTransactionReceipt' | 'getLogs'
>

/** Options of `createEip3009Facilitator` and `createPermit2Facilitator`. */
export type EvmFacilitatorOptions = {
  /**
   * Per CAIP-2 network: the RPC client, the relayer that pays settlement gas and, optionally, how
   * many verify `eth_call`s may await the node at once (the multicall batcher's `maxInFlight`,
   * default 2; 1 suits a node on the same machine, see `createSchemesFromConfig`).
   */
  networks: Record<string, { client: EvmFacilitatorClient; relayer: Relayer; maxEthCallsInFlight?: number }>
  /** Allowlist: only assets registered for the network whose `transferMethods` include the scheme. */
  assets: AssetRegistry
  /** Clock in milliseconds (default `Date.now`). */
  now?: () => number
  /** Factories allowed to deploy ERC-6492 counterfactual wallets (default none: fail closed). */
  eip6492AllowedFactories?: Address[]
  /** Bound of a settle's receipt wait before it answers `settlement_pending` (default 20 s). */
  receiptTimeoutMs?: number
  /** Seconds of clock skew tolerated above `now + maxTimeoutSeconds` for `validBefore` / `deadline` (default 60). */
  maxValidityBufferSeconds?: number
  /** Run the transfer simulation again when settle re-verifies (default false; state reads always run). */
  simulateInSettle?: boolean
  /** Gas limits of settlement transactions (defaults: eip3009 150k, permit2 250k, +100k for contract wallets). */
  gasLimits?: { eip3009?: bigint; permit2?: bigint; contractWallet?: bigint }
  /**
   * Recovery of a recorded transaction the node no longer knows: how many recent blocks to search
   * for the transaction that used the payment (default 10,000), and how far chain time must be past
   * the authorization's deadline before it counts as expired for good (default 60 s, a margin for
   * reorgs of the chain head).
   */
  recovery?: { lookbackBlocks?: number; expiryMarginSeconds?: number }
}

/** One network as the facilitators use it. */
export type ExactEvmNetwork = {
  network: Network
  client: EvmFacilitatorClient
  relayer: Relayer
  batcher: MulticallBatcher
  codeCache: CodeCache
}

/** Resolved options shared by the verify and settle functions. */
export type ExactEvmContext = {
  networks: Map<string, ExactEvmNetwork>
  assets: AssetRegistry
  now: () => number
  allowedFactories: string[]
  receiptTimeoutMs: number
  maxValidityBufferSeconds: bigint
  simulateInSettle: boolean
  gasLimits: { eip3009: bigint; permit2: bigint; contractWallet: bigint }
  recovery: { lookbackBlocks: bigint; expiryMarginSeconds: bigint }
}

/** Resolves {@link EvmFacilitatorOptions} into the shared context (one batcher and code cache per client). */
export function createExactEvmContext(options: EvmFacilitatorOptions): ExactEvmContext {
  const networks = new Map<string, ExactEvmNetwork>()
  for (const [network, { client, relayer, maxEthCallsInFlight }] of Object.entries(options.networks)) {
    if (!isEvmNetwork(network)) {
      continue
    }
    networks.set(network, {
      network,
      client,
      relayer,
      batcher: getMulticallBatcher(client, maxEthCallsInFlight ? { maxInFlight: maxEthCallsInFlight } : {}),
      codeCache: getCodeCache(client),
    })
  }
  return {
    networks,
    assets: options.assets,
    now: options.now ?? Date.now,
    allowedFactories: (options.eip6492AllowedFactories ?? []).map((a) => a.toLowerCase()),
    receiptTimeoutMs: options.receiptTimeoutMs ?? 20_000,
    maxValidityBufferSeconds: BigInt(options.maxValidityBufferSeconds ?? 60),
    simulateInSettle: options.simulateInSettle ?? false,
    gasLimits: {
      eip3009: options.gasLimits?.eip3009 ?? 150_000n,
      permit2: options.gasLimits?.permit2 ?? 250_000n,
      contractWallet: options.gasLimits?.contractWallet ?? 100_000n,
    },
    recovery: {
      lookbackBlocks: BigInt(options.recovery?.lookbackBlocks ?? 10_000),
      expiryMarginSeconds: BigInt(options.recovery?.expiryMarginSeconds ?? 60),
    },
  }
}
