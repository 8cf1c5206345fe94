import { type RawKey, readRawKey, toAddress } from './raw-keys.js'
import { WireReader } from './wire-reader.js'

/** One compiled instruction: indexes into the account keys, and its data (views into the wire bytes). */
export type CompiledInstruction = { programIndex: number; accounts: Buffer; data: Buffer }

/** A legacy or v0 message, decoded without base58 (keys stay raw). */
export type PaymentMessage = {
  version: 'legacy' | 0
  numSigners: number
  numReadonlySigners: number
  numReadonlyNonSigners: number
  /** Static account keys; `accountKeys[0]` is the fee payer. */
  accountKeys: RawKey[]
  blockhash: RawKey
  instructions: CompiledInstruction[]
  /** Address lookup tables the message loads accounts from (refused by verify). */
  lookupTableCount: number
}

/** A payment transaction decoded once: wire bytes, signatures, message bytes and message. */
export type DecodedPaymentTransaction = {
  wire: Buffer
  /** Signature `i` belongs to `message.accountKeys[i]`; 64-byte views into `wire`. */
  signatures: Buffer[]
  messageBytes: Buffer
  message: PaymentMessage
}

/** Largest wire transaction the cluster accepts (IPv6 MTU minus headers), in bytes. */
const MAX_WIRE_BYTES = 1232
const MAX_BASE64_CHARS = Math.ceil(MAX_WIRE_BYTES / 3) * 4

/**
 * Decodes a base64 wire transaction strictly and without base58: canonical base64, at most 1232
 * bytes, no trailing bytes, a legacy or v0 message, one signature per required signer, distinct
 * static accounts and in-range account indexes (what the runtime's sanitizer refuses). Returns
 * `undefined` for anything else. About 20x faster than kit's transaction decoder, which base58-
 * encodes every account key.
 */
export function decodePaymentTransaction(base64: string): DecodedPaymentTransaction | undefined {
  if (base64.length === 0 || base64.length > MAX_BASE64_CHARS) {
    return undefined
  }
  const wire = Buffer.from(base64, 'base64')
  // Buffer skips invalid characters; requiring the canonical form means the bytes we check are the
  // bytes an RPC node decodes from the same string.
  if (wire.toString('base64') !== base64) {
    return undefined
  }
  try {
    const reader = new WireReader(wire)
    const signatureCount = reader.shortU16()
    const signatures = Array.from({ length: signatureCount }, () => reader.take(64))
    const messageStart = reader.offset
    const message = readMessage(reader)
    if (reader.offset !== wire.length || message.numSigners !== signatureCount || !isSane(message)) {
      return undefined
    }
    return { wire, signatures, messageBytes: wire.subarray(messageStart), message }
  } catch {
    return undefined
  }
}

function readMessage(reader: WireReader<Buffer>): PaymentMessage {
  let version: 'legacy' | 0 = 'legacy'
  const first = reader.bytes[reader.offset] ?? 0
  if (first & 0x80) {
    reader.offset++
    if ((first & 0x7f) !== 0) {
      throw new RangeError('unsupported message version')
    }
    version = 0
  }
  const numSigners = reader.u8()
  const numReadonlySigners = reader.u8()
  const numReadonlyNonSigners = reader.u8()
  const accountKeys = Array.from({ length: reader.shortU16() }, () => readRawKey(reader.take(32), 0))
  const blockhash = readRawKey(reader.take(32), 0)
  const instructions = Array.from({ length: reader.shortU16() }, () => ({
    programIndex: reader.u8(),
    accounts: reader.take(reader.shortU16()),
    data: reader.take(reader.shortU16()),
  }))
  let lookupTableCount = 0
  let loadedAccounts = 0
  if (version === 0) {
    lookupTableCount = reader.shortU16()
    for (let i = 0; i < lookupTableCount; i++) {
      reader.take(32)
      loadedAccounts += reader.take(reader.shortU16()).length
      loadedAccounts += reader.take(reader.shortU16()).length
    }
  }
  const message = {
    version,
    numSigners,
    numReadonlySigners,
    numReadonlyNonSigners,
    accountKeys,
    blockhash,
    instructions,
    lookupTableCount,
  }
  // Indexes past the static keys point into lookup-table accounts.
  for (const instruction of instructions) {
    if (instruction.accounts.some((index) => index >= accountKeys.length + loadedAccounts)) {
      throw new RangeError('account index out of range')
    }
  }
  return message
}

function isSane(message: PaymentMessage): boolean {
  const count = message.accountKeys.length
  return (
    message.numSigners >= 1 &&
    message.numReadonlySigners < message.numSigners &&
    message.numSigners + message.numReadonlyNonSigners <= count &&
    new Set(message.accountKeys).size === count &&
    message.instructions.every((i) => i.programIndex > 0 && i.programIndex < count)
  )
}

/**
 * The fee payer a base64 payment transaction names (its first account key), or `undefined` when it
 * does not decode. A merchant rebuilding an `exact` requirement for a signed Solana payment takes
 * the fee payer from here, since the facilitator may offer several.
 */
export function getPaymentFeePayer(base64: string): string | undefined {
  const key = decodePaymentTransaction(base64)?.message.accountKeys[0]
  return key === undefined ? undefined : toAddress(key)
}
