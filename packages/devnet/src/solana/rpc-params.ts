import { type Address, getBase58Encoder, isAddress } from '@solana/kit'
import { createInvalidParamsError } from './rpc-error.js'
import type { SolanaChain } from './solana-chain.js'

/** A config object parameter (`{ commitment, encoding, … }`); missing or null gives `{}`. */
export type RpcConfig = Record<string, unknown>

/** Reads the config object at `index`, rejecting non-objects as the RPC does. */
export function readConfig(params: unknown[], index: number): RpcConfig {
  const value = params[index]
  if (value === undefined || value === null) {
    return {}
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw createInvalidParamsError(`Invalid params: invalid type for config at position ${index}.`)
  }
  return value as RpcConfig
}

/** Reads a base58 address parameter (`Invalid param: Invalid` as agave words it). */
export function readAddress(value: unknown): Address {
  if (typeof value !== 'string' || !isAddress(value)) {
    throw createInvalidParamsError('Invalid param: Invalid')
  }
  return value
}

/** Reads a required string parameter. */
export function readString(params: unknown[], index: number): string {
  const value = params[index]
  if (typeof value !== 'string') {
    throw createInvalidParamsError(`Invalid params: expected a string at position ${index}.`)
  }
  return value
}

/** Reads an unsigned integer parameter (JSON number). */
export function readInteger(params: unknown[], index: number): bigint {
  const value = params[index]
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw createInvalidParamsError(`Invalid params: expected an unsigned integer at position ${index}.`)
  }
  return BigInt(value)
}

/** Decodes a base58 or base64 payload (transactions, messages) with the RPC's error wording. */
export function decodeBinary(value: string, encoding: unknown): Uint8Array {
  const name = encoding ?? 'base58'
  if (name !== 'base58' && name !== 'base64') {
    throw createInvalidParamsError(
      `Invalid params: unsupported encoding: ${String(name)}. Supported encodings: base58, base64`,
    )
  }
  if (name === 'base64') {
    // Buffer skips characters outside the alphabet, so the alphabet is checked first.
    if (!BASE64.test(value)) {
      throw createInvalidParamsError('Invalid params: invalid base64 encoding')
    }
    return Buffer.from(value, 'base64')
  }
  try {
    return new Uint8Array(getBase58Encoder().encode(value))
  } catch {
    throw createInvalidParamsError(`Invalid params: invalid ${name} encoding`)
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The `{ context, value }` wrapper of the RPC's contextual responses. */
export function withContext(
  chain: SolanaChain,
  value: unknown,
): { context: { apiVersion: string; slot: number | bigint }; value: unknown } {
  return { context: { apiVersion: SOLANA_API_VERSION, slot: toJsonInteger(chain.slot) }, value }
}

/** A u64 as a plain number when it is a safe integer (cheaper to serialize), else the bigint. */
export function toJsonInteger(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value
}

/** The agave version the devnet reports in `getVersion` and response contexts. */
export const SOLANA_API_VERSION = '2.3.6'
