import { getAbiItem, type Hex, multicall3Abi, toFunctionSelector } from 'viem'

// Multicall3 `aggregate3((address target, bool allowFailure, bytes callData)[])` and its
// `(bool success, bytes returnData)[]` result, written and read directly on hex strings. Every
// verify's calls pass through here; viem's generic ABI coder spent about 8% of a verify's CPU on
// this one fixed layout (tests pin the bytes to viem's coder).

const SELECTOR = toFunctionSelector(getAbiItem({ abi: multicall3Abi, name: 'aggregate3' }))
const WORD = 64

/** One `aggregate3` call (`allowFailure` is always true: a failed call is a result, not an error). */
export type Aggregate3Call = { target: Hex; callData: Hex }
/** One `aggregate3` result. */
export type Aggregate3Result = { success: boolean; returnData: Hex }

/** Calldata of `aggregate3(calls)` with `allowFailure: true` on every call. */
export function encodeAggregate3(calls: readonly Aggregate3Call[]): Hex {
  const heads: string[] = []
  const tails: string[] = []
  let offset = calls.length * 32
  for (const call of calls) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(call.target) || !/^0x(?:[0-9a-fA-F]{2})*$/.test(call.callData)) {
      throw new TypeError('aggregate3 call needs a 20-byte target and even-length hex calldata')
    }
    const data = call.callData.slice(2)
    const padded = data.padEnd(Math.ceil(data.length / WORD) * WORD, '0')
    heads.push(toWord(offset))
    tails.push(
      `000000000000000000000000${call.target.slice(2).toLowerCase()}${toWord(1)}${toWord(96)}${toWord(data.length / 2)}${padded}`,
    )
    offset += 128 + padded.length / 2
  }
  return `${SELECTOR}${toWord(32)}${toWord(calls.length)}${heads.join('')}${tails.join('')}` as Hex
}

/** Decodes the return data of `aggregate3`; throws on data that is not a well-formed result. */
export function decodeAggregate3(data: Hex): Aggregate3Result[] {
  const hex = data.slice(2)
  const array = readOffset(hex, 0)
  const count = readNumber(hex, array)
  const base = array + WORD
  const results: Aggregate3Result[] = []
  for (let i = 0; i < count; i++) {
    const tuple = base + readOffset(hex, base + i * WORD)
    const success = readNumber(hex, tuple)
    const bytes = tuple + readOffset(hex, tuple + WORD)
    const length = readNumber(hex, bytes) * 2
    const start = bytes + WORD
    if (success > 1 || start + length > hex.length) {
      throw new RangeError('aggregate3 result is malformed')
    }
    results.push({ success: success === 1, returnData: `0x${hex.slice(start, start + length)}` })
  }
  return results
}

function toWord(value: number): string {
  return value.toString(16).padStart(WORD, '0')
}

// Positions are in hex characters; ABI offsets count bytes.
function readOffset(hex: string, at: number): number {
  return readNumber(hex, at) * 2
}

function readNumber(hex: string, at: number): number {
  const word = hex.slice(at, at + WORD)
  if (word.length !== WORD || !/^0{48}[0-9a-fA-F]{16}$/.test(word)) {
    throw new RangeError('aggregate3 result is malformed')
  }
  const value = Number.parseInt(word.slice(48), 16)
  if (!Number.isSafeInteger(value) || value > hex.length) {
    throw new RangeError('aggregate3 result is malformed')
  }
  return value
}
