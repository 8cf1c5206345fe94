import { type Abi, decodeErrorResult, type Hex } from 'viem'
import type { MulticallResult } from './multicall-batcher.js'

/** A successful uint256 return value, or `undefined` (call failed or returned no word: no code). */
export function decodeUint(result: MulticallResult | undefined): bigint | undefined {
  if (!result?.success || result.returnData.length !== 66) {
    return undefined
  }
  return BigInt(result.returnData)
}

/** A successful bool return value, or `undefined`. */
export function decodeBool(result: MulticallResult | undefined): boolean | undefined {
  const value = decodeUint(result)
  return value === undefined ? undefined : value !== 0n
}

/** A readable revert reason: `Error(string)`, a custom error name from `abi`, a panic, or raw data. */
export function describeRevert(data: Hex, abi: Abi = []): string {
  if (data === '0x') {
    return 'execution reverted'
  }
  try {
    const decoded = decodeErrorResult({ abi, data })
    if (decoded.errorName === 'Error') {
      return String(decoded.args?.[0] ?? 'execution reverted')
    }
    const args = decoded.args?.length ? `(${decoded.args.map(String).join(', ')})` : '()'
    return `${decoded.errorName}${args}`
  } catch {
    return `execution reverted: ${data.slice(0, 74)}`
  }
}

/** The custom error name in revert `data`, if `abi` declares it. */
export function getRevertErrorName(data: Hex, abi: Abi): string | undefined {
  try {
    return decodeErrorResult({ abi, data }).errorName
  } catch {
    return undefined
  }
}

/**
 * Whether a call to an EOA ran code: an EIP-7702-delegated account answers (or reverts) where a
 * plain EOA returns nothing. Tokens such as FiatToken v2.2, and Permit2, ask any signer with code
 * for ERC-1271 instead of recovering its key, so a matching ECDSA signature proves nothing there;
 * only the token's own simulated transfer does.
 */
export function runsCode(result: MulticallResult | undefined): boolean {
  return result !== undefined && (!result.success || result.returnData !== '0x')
}
