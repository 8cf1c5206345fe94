import { AppError } from '@tollgate/core'
import { createEvmHttpTransport } from '@tollgate/evm'
import { createPublicClient, formatUnits, type PublicClient } from 'viem'
import type { ChainInfo, ChainName } from './chains.js'
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

/** Fee readers per chain; chains without one use the table's static sandbox fees. */
export type GasFeeReaders = Partial<
  Record<ChainName, { evm: EvmGasPriceReader } | { solana: SolanaRentReader }>
>

/** Creates fee readers for the chains of `data.rpc` (viem on undici for EVM, JSON-RPC fetch for Solana). */
export function createGasFeeReaders(data: ReferenceData): GasFeeReaders {
  const readers: GasFeeReaders = {}
  for (const [chain, rpc] of Object.entries(data.rpc) as [ChainName, { kind: string; rpcUrl: string }][]) {
    readers[chain] =
      rpc.kind === 'evm'
        ? {
            evm: createPublicClient({
              transport: createEvmHttpTransport(rpc.rpcUrl, { timeoutMs: 3_000, retryCount: 0 }),
            }),
          }
        : { solana: createSolanaRentReader(rpc.rpcUrl) }
  }
  return readers
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
        throw new Error(`getMinimumBalanceForRentExemption failed: ${body.error?.message ?? response.status}`)
      }
      return BigInt(body.result)
    },
  }
}

/**
 * Network fee of a transfer per chain and lower-case asset symbol, as a decimal string in the
 * chain's native coin: read from the chain where a reader exists, the table's sandbox value elsewhere.
 */
export async function getGasFees(
  data: ReferenceData,
  readers: GasFeeReaders,
): Promise<Record<string, Record<string, string>>> {
  const entries = await Promise.all(
    data.chains.map(async (info) => [info.chain, await getChainFees(info, readers[info.chain])] as const),
  )
  return Object.fromEntries(entries)
}

async function getChainFees(
  info: ChainInfo,
  reader: GasFeeReaders[ChainName],
): Promise<Record<string, string>> {
  if (!reader) {
    return { ...info.staticFees }
  }
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
