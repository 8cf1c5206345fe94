import { describe, expect, it } from 'vitest'
import { WireReader } from './wire-reader.js'

describe('WireReader', () => {
  it('reads bytes, compact-u16 lengths (1 to 3 bytes) and slices as views', () => {
    const bytes = Buffer.from([7, 0x05, 0x80, 0x01, 0xff, 0xff, 0x03, 1, 2, 3])
    const reader = new WireReader(bytes)
    expect(reader.u8()).toBe(7)
    expect(reader.shortU16()).toBe(5)
    expect(reader.shortU16()).toBe(128)
    expect(reader.shortU16()).toBe(0xffff)
    const slice = reader.take(3)
    expect([...slice]).toEqual([1, 2, 3])
    expect(Buffer.isBuffer(slice)).toBe(true)
    expect(slice.buffer).toBe(bytes.buffer)
    expect(reader.offset).toBe(bytes.length)
  })

  it('throws RangeError in agave wording past the end, and on a fourth compact-u16 byte', () => {
    expect(() => new WireReader(new Uint8Array([])).u8()).toThrow('io error: unexpected end of file')
    expect(() => new WireReader(new Uint8Array([1])).take(2)).toThrow(RangeError)
    expect(() => new WireReader(new Uint8Array([0x80, 0x80, 0x80, 0x01])).shortU16()).toThrow(
      'invalid compact-u16',
    )
  })
})
