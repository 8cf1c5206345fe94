import { randomBytes, randomInt } from 'node:crypto'
import {
  bytesToHex,
  decodeFunctionResult,
  encodeFunctionData,
  encodeFunctionResult,
  getAddress,
  type Hex,
  multicall3Abi,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeAggregate3, encodeAggregate3 } from './aggregate3.js'

const hex = (bytes: number): Hex => bytesToHex(randomBytes(bytes))

// Lengths around the 32-byte word boundaries, where padding mistakes show.
const LENGTHS = [0, 1, 4, 31, 32, 33, 36, 64, 65, 100, 292]

describe('aggregate3 coder', () => {
  it('encodes calls byte for byte as viem does', () => {
    for (let round = 0; round < 30; round++) {
      const calls = Array.from({ length: randomInt(0, 6) }, () => ({
        target: getAddress(hex(20)),
        callData: hex(LENGTHS[randomInt(LENGTHS.length)] ?? 0),
      }))
      expect(encodeAggregate3(calls)).toBe(
        encodeFunctionData({
          abi: multicall3Abi,
          functionName: 'aggregate3',
          args: [calls.map((c) => ({ ...c, allowFailure: true }))],
        }),
      )
    }
  })

  it('decodes results as viem does', () => {
    for (let round = 0; round < 30; round++) {
      const results = Array.from({ length: randomInt(0, 6) }, () => ({
        success: randomInt(2) === 1,
        returnData: hex(LENGTHS[randomInt(LENGTHS.length)] ?? 0),
      }))
      const data = encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: results })
      expect(decodeAggregate3(data)).toEqual(
        decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data }),
      )
      expect(decodeAggregate3(data)).toEqual(results)
    }
  })

  it('refuses malformed input instead of reading past it', () => {
    expect(() => encodeAggregate3([{ target: '0x1234', callData: '0x' }])).toThrow(TypeError)
    expect(() => encodeAggregate3([{ target: getAddress(hex(20)), callData: '0xabc' }])).toThrow(TypeError)
    const data = encodeFunctionResult({
      abi: multicall3Abi,
      functionName: 'aggregate3',
      result: [{ success: true, returnData: hex(40) }],
    })
    expect(() => decodeAggregate3(data.slice(0, -64) as Hex)).toThrow(RangeError)
    expect(() => decodeAggregate3('0x')).toThrow(RangeError)
    // A length word claiming more bytes than were returned.
    expect(() => decodeAggregate3(`0x${'0'.repeat(62)}20${'f'.repeat(64)}` as Hex)).toThrow(RangeError)
  })
})
