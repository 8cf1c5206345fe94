import { keccak256 } from 'viem'
import { describe, expect, test } from 'vitest'
import { keccakBytes, keccakText } from './abi-words.js'

describe('keccakBytes', () => {
  test('behavior: matches viem keccak256 around the 136-byte rate, one call after another', () => {
    // One sponge is re-initialized per hash: a leftover from the previous input would show here.
    for (const length of [0, 1, 31, 32, 66, 135, 136, 137, 272, 300, 1]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 7 + length) & 0xff)
      expect(Buffer.from(keccakBytes(data)).toString('hex')).toBe(keccak256(data).slice(2))
    }
  })

  test('behavior: hashes a Buffer view at an offset and text as UTF-8', () => {
    const backing = Buffer.from('xxhello world', 'utf8')
    expect(Buffer.from(keccakBytes(backing.subarray(2))).toString('hex')).toBe(
      keccak256(new TextEncoder().encode('hello world')).slice(2),
    )
    expect(keccakText('USD Coin ✓')).toEqual(keccak256(new TextEncoder().encode('USD Coin ✓'), 'bytes'))
  })
})
