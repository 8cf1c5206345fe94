/**
 * Reads Solana's wire format: bytes, compact-u16 ("shortvec") lengths and fixed-size slices, as a
 * view over the input (no copies). Truncated input throws a `RangeError` in agave's RPC wording.
 * Shared by the facilitator's payment decoder (`@tollgate/svm`) and the devnet's RPC server.
 */
export class WireReader<TBytes extends Uint8Array = Uint8Array> {
  offset = 0

  constructor(readonly bytes: TBytes) {}

  u8(): number {
    const value = this.bytes[this.offset++]
    if (value === undefined) {
      throw new RangeError('io error: unexpected end of file')
    }
    return value
  }

  /** compact-u16: 7 bits per byte, at most 3 bytes. */
  shortU16(): number {
    let value = 0
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = this.u8()
      value |= (byte & 0x7f) << shift
      if ((byte & 0x80) === 0) {
        return value
      }
    }
    throw new RangeError('invalid compact-u16')
  }

  /** The next `length` bytes, as a view of the same type as the input (a Buffer stays a Buffer). */
  take(length: number): TBytes {
    if (this.offset + length > this.bytes.length) {
      throw new RangeError('io error: unexpected end of file')
    }
    const view = this.bytes.subarray(this.offset, this.offset + length) as TBytes
    this.offset += length
    return view
  }
}
