import { AppError } from '@tollgate/core'
import { createEvmHttpTransport } from '@tollgate/evm'
import { createPublicClient, formatUnits, type PublicClient } from 'viem'
import type { ChainEntry } from '../rails/types.js'
import { type ChainName, chainTable } from './chains.js'
import type { GasFeeCache } from './gas-fee-cache.js'
import type { ReferenceData } from './reference-data.js'

/** Gas units of a native-coin transfer on EVM chains. */
export const evmNativeTransferGas = 21_000n
/** Gas units budgeted for an ERC-20 `transfer` (a cold recipient slot costs about 50-65k). */
export const evmTokenTransferGas = 65_000n
/** Solana's fixed fee per signature, in lamports. */
export const solanaSignatureFeeLamports = 5_000n
/** Size in bytes of an SPL token account, whose rent a token transfer may pay to create the recipient's. */
export const splTokenAccountBytes = 165

/** The one EVM capability gas fees need (a viem PublicClient fits as-is). */
export type EvmGasPriceReader = Pick<PublicClient, 'getGasPrice'>

/** The one Solana capability gas fees need: rent-exempt minimum in lamports for an account size. */
export type SolanaRentReader = { getMinimumBalanceForRentExemption(bytes: number): Promise<bigint> }

/** Fee readers per chain; sandbox chains without one use the table's static fees, live ones have none. */
export type GasFeeReaders = Partial<
  Record<ChainName, { evm: EvmGasPriceReader } | { solana: SolanaRentReader }>
>

/** Creates fee readers for the chains of `data.rpc` (viem on undici for EVM, JSON-RPC fetch for Solana). */
export function createGasFeeReaders(data: ReferenceData): GasFeeReaders {
  const readers: GasFeeReaders = {}
  for (const [chain, rpc] of Object.entries(data.rpc) as [ChainName, { kind: string; rpcUrl: string }][]) {
    readers[chain] = createReader(rpc.kind === 'evm' ? 'evm' : 'solana', rpc.rpcUrl)
  }
  return readers
}

/**
 * Creates fee readers for live networks configured by CAIP-2 id (the mainnets of the reference
 * table, `tollgate serve`'s `networks`): EVM and Solana chains only, the others have no fee reader.
 */
export function createLiveGasFeeReaders(networks: Record<string, { rpcUrl: string }>): GasFeeReaders {
  const readers: GasFeeReaders = {}
  for (const info of chainTable) {
    const network = networks[info.live.networkId]
    if (network && (info.family === 'evm' || info.family === 'solana')) {
      readers[info.chain] = createReader(info.family, network.rpcUrl)
    }
  }
  return readers
}

function createReader(kind: 'evm' | 'solana', rpcUrl: string): NonNullable<GasFeeReaders[ChainName]> {
  return kind === 'evm'
    ? {
        evm: createPublicClient({
          transport: createEvmHttpTransport(rpcUrl, { timeoutMs: 3_000, retryCount: 0 }),
        }),
      }
    : { solana: createSolanaRentReader(rpcUrl) }
}

/** A {@link SolanaRentReader} over Solana JSON-RPC `getMinimumBalanceForRentExemption`. */
export function createSolanaRentReader(rpcUrl: string): SolanaRentReader {
  return {
    async getMinimumBalanceForRentExemption(bytes) {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getMinimumBalanceForRentExemption',
          params: [bytes],
        }),
        signal: AbortSignal.timeout(3_000),
      })
      const body = (await response.json()) as { result?: number | string; error?: { message: string } }
      if (body.result === undefined) {
        throw new AppError('provider_unavailable', {
          message: `getMinimumBalanceForRentExemption failed: ${body.error?.message ?? response.status}`,
        })
      }
      return BigInt(body.result)
    },
  }
}

/** Fees per chain and lower-case asset symbol, as decimal strings in each chain's native coin. */
export type GasFees = Record<string, Record<string, string>>

/**
 * Why a chain has no fee in a live key's answer: no node of it is configured, or its node is of a
 * family whose fees the service does not read (Bitcoin, Tron, Dogecoin).
 */
export type GasFeeUnavailable = 'no_node_configured' | 'no_fee_reader'

// What a fee read needs of a chain: its name, native coin and the symbols of its tokens.
type FeeChain = {
  chain: ChainName
  native: { symbol: string; decimals: number }
  tokens: { symbol: string }[]
}

const uncached: GasFeeCache = (_key, load) => load()

/**
 * Network fee of a transfer per chain and lower-case asset symbol for sandbox keys, as a decimal
 * string in the chain's native coin: read from the chain where a reader exists (through `cache`),
 * the table's sandbox value elsewhere.
 */
export async function getGasFees(
  data: ReferenceData,
  readers: GasFeeReaders,
  cache: GasFeeCache = uncached,
): Promise<GasFees> {
  const entries = await Promise.all(
    data.chains.map(async (info) => {
      const reader = readers[info.chain]
      const fees = reader
        ? await cache(`test:${info.chain}`, () => readChainFees(info, reader))
        : { ...info.staticFees }
      return [info.chain, fees] as const
    }),
  )
  return Object.fromEntries(entries)
}

/**
 * Network fees for live keys: read from the configured node of each live chain (through `cache`),
 * never a static table; a chain without a node or fee reader has no fees and is named in
 * `unavailable` with the reason. A node that does not answer is 503 `provider_unavailable`.
 */
export async function getLiveGasFees(
  entries: readonly ChainEntry[],
  readers: GasFeeReaders,
  cache: GasFeeCache = uncached,
): Promise<{ fees: GasFees; unavailable: Record<string, GasFeeUnavailable> }> {
  const fees: GasFees = {}
  const unavailable: Record<string, GasFeeUnavailable> = {}
  await Promise.all(
    entries.map(async (entry) => {
      const reader = readers[entry.chain]
      if (!reader) {
        unavailable[entry.chain] = entry.hasNode ? 'no_fee_reader' : 'no_node_configured'
        return
      }
      const native = entry.assets.find((asset) => asset.kind === 'native')
      const chain: FeeChain = {
        chain: entry.chain,
        native: native ?? { symbol: entry.chain, decimals: 18 },
        tokens: entry.assets.filter((asset) => asset.kind !== 'native'),
      }
      fees[entry.chain] = await cache(`live:${entry.chain}`, () => readChainFees(chain, reader))
    }),
  )
  // Keys in the registry's chain order, whatever order the reads ended in.
  const ordered: GasFees = {}
  for (const entry of entries) {
    const read = fees[entry.chain]
    if (read) {
      ordered[entry.chain] = read
    }
  }
  return { fees: ordered, unavailable }
}

async function readChainFees(
  info: FeeChain,
  reader: NonNullable<GasFeeReaders[ChainName]>,
): Promise<Record<string, string>> {
  try {
    const [nativeFee, tokenFee] = await readFees(reader)
    const fees: Record<string, string> = {
      [info.native.symbol.toLowerCase()]: formatUnits(nativeFee, info.native.decimals),
    }
    for (const token of info.tokens) {
      fees[token.symbol.toLowerCase()] = formatUnits(tokenFee, info.native.decimals)
    }
    return fees
  } catch (cause) {
    throw new AppError('provider_unavailable', {
      message: `Could not read gas fees from the ${info.chain} node`,
      cause,
    })
  }
}

async function readFees(reader: NonNullable<GasFeeReaders[ChainName]>): Promise<[bigint, bigint]> {
  if ('evm' in reader) {
    const gasPrice = await reader.evm.getGasPrice()
    return [gasPrice * evmNativeTransferGas, gasPrice * evmTokenTransferGas]
  }
  const rent = await reader.solana.getMinimumBalanceForRentExemption(splTokenAccountBytes)
  return [solanaSignatureFeeLamports, solanaSignatureFeeLamports + rent]
}
