import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import {
  type Address,
  type CompiledTransactionMessageWithLifetime,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  type LegacyCompiledTransactionMessage,
  type V0CompiledTransactionMessage,
} from '@solana/kit'
import { WireReader } from '@tollgate/svm'
import { createInvalidParamsError } from './rpc-error.js'

/** A compiled legacy or v0 message with its blockhash (v1 messages are not live on any cluster yet). */
export type CompiledMessage = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) &
  CompiledTransactionMessageWithLifetime

/** One compiled instruction: indexes into the account keys, and its data (views into the wire bytes). */
export type WireInstruction = { programIndex: number; accounts: Uint8Array; data: Uint8Array }

/** One address lookup of a v0 message: the table's key and the indexes it loads. */
export type WireLookup = { table: Uint8Array; writableIndexes: Uint8Array; readonlyIndexes: Uint8Array }

/** Lamports charged per required signature (the cluster's fixed base fee). */
export const LAMPORTS_PER_SIGNATURE = 5000n
// Ed25519 SPKI DER prefix: lets node:crypto verify with a raw 32-byte public key.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const COMPUTE_BUDGET_PROGRAM = Buffer.from(
  getAddressEncoder().encode('ComputeBudget111111111111111111111111111111' as Address),
)
const NO_SIGNATURE = new Uint8Array(64)

/**
 * A wire transaction parsed once, without base58: raw views of the signatures, static account keys,
 * blockhash and instructions, which is all that admission, fees and LiteSVM (handed `wire` as is)
 * need. The base58 signature and blockhash, and kit's compiled message (for getTransaction), are
 * derived on first use: base58 costs tens of microseconds per key in JavaScript, and simulation,
 * the devnet's hottest method, needs none of it.
 */
export class DecodedTransaction {
  private signatureText: string | undefined
  private blockhashText: string | undefined
  private compiled: CompiledMessage | undefined

  constructor(
    /** The transaction's bytes (any trailing bytes after the message dropped). */
    readonly wire: Uint8Array,
    readonly version: 'legacy' | 0,
    readonly header: {
      numSignerAccounts: number
      numReadonlySignerAccounts: number
      numReadonlyNonSignerAccounts: number
    },
    /** Signature `i` belongs to static account `i` (64-byte views). */
    readonly signatures: readonly Uint8Array[],
    readonly messageBytes: Uint8Array,
    /** Static account keys (32-byte views); `staticKeys[0]` is the fee payer. */
    readonly staticKeys: readonly Uint8Array[],
    /** Offset of the 32-byte recent blockhash in `wire`. */
    readonly blockhashOffset: number,
    readonly instructions: readonly WireInstruction[],
    readonly lookups: readonly WireLookup[],
  ) {}

  /** The first signature in base58: the transaction id. */
  get signature(): string {
    this.signatureText ??= getBase58Decoder().decode(this.signatures[0] ?? NO_SIGNATURE)
    return this.signatureText
  }

  /** The first signature's bytes as a latin1 string: a cheap map key. */
  get signatureKey(): string {
    return toLatin1(this.signatures[0] ?? NO_SIGNATURE)
  }

  /** The recent blockhash in base58. */
  get blockhash(): string {
    this.blockhashText ??= getBase58Decoder().decode(this.blockhashBytes)
    return this.blockhashText
  }

  /** The recent blockhash's bytes as a latin1 string: a cheap map key. */
  get blockhashKey(): string {
    return toLatin1(this.blockhashBytes)
  }

  get blockhashBytes(): Uint8Array {
    return this.wire.subarray(this.blockhashOffset, this.blockhashOffset + 32)
  }

  /** kit's compiled message (base58 keys), decoded on first use. */
  get message(): CompiledMessage {
    this.compiled ??= getCompiledTransactionMessageDecoder().decode(this.messageBytes) as CompiledMessage
    return this.compiled
  }
}

/** Bytes as a latin1 string, one character per byte: a map key that costs no base58. */
export function toLatin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}

/**
 * Parses wire bytes as agave's RPC does (trailing bytes ignored), throwing the RPC's `-32602`
 * wording on malformed input: truncated, an unknown message version, or fewer or more signatures
 * than the message's required signers.
 */
export function decodeWireTransaction(bytes: Uint8Array): DecodedTransaction {
  try {
    const reader = new WireReader(bytes)
    const signatures = Array.from({ length: reader.shortU16() }, () => reader.take(64))
    const messageStart = reader.offset
    const message = readMessage(reader)
    if (signatures.length !== message.header.numSignerAccounts) {
      throw new RangeError(
        `the message expects ${message.header.numSignerAccounts} signatures, the transaction has ${signatures.length}`,
      )
    }
    const wire = bytes.subarray(0, reader.offset)
    return new DecodedTransaction(
      wire,
      message.version,
      message.header,
      signatures,
      wire.subarray(messageStart),
      message.staticKeys,
      message.blockhashOffset,
      message.instructions,
      message.lookups,
    )
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause)
    throw createInvalidParamsError(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${detail}`,
    )
  }
}

/** The parts of a message that fees and admission read (offsets relative to the reader's bytes). */
export type WireMessage = {
  version: 'legacy' | 0
  header: DecodedTransaction['header']
  staticKeys: readonly Uint8Array[]
  blockhashOffset: number
  instructions: readonly WireInstruction[]
  lookups: readonly WireLookup[]
}

function readMessage(reader: WireReader<Uint8Array>): WireMessage {
  let version: 'legacy' | 0 = 'legacy'
  const prefix = reader.bytes[reader.offset] ?? 0
  if (prefix & 0x80) {
    reader.offset++
    if ((prefix & 0x7f) !== 0) {
      throw new RangeError(`unsupported transaction version ${prefix & 0x7f}`)
    }
    version = 0
  }
  const header = {
    numSignerAccounts: reader.u8(),
    numReadonlySignerAccounts: reader.u8(),
    numReadonlyNonSignerAccounts: reader.u8(),
  }
  const staticKeys = Array.from({ length: reader.shortU16() }, () => reader.take(32))
  const blockhashOffset = reader.offset
  reader.take(32)
  const instructions = Array.from({ length: reader.shortU16() }, () => ({
    programIndex: reader.u8(),
    accounts: reader.take(reader.shortU16()),
    data: reader.take(reader.shortU16()),
  }))
  const lookups =
    version === 0
      ? Array.from({ length: reader.shortU16() }, () => ({
          table: reader.take(32),
          writableIndexes: reader.take(reader.shortU16()),
          readonlyIndexes: reader.take(reader.shortU16()),
        }))
      : []
  return { version, header, staticKeys, blockhashOffset, instructions, lookups }
}

/** Parses a serialized message (getFeeForMessage's input), or `undefined` when it is malformed. */
export function decodeWireMessage(bytes: Uint8Array): WireMessage | undefined {
  try {
    return readMessage(new WireReader(bytes))
  } catch {
    return undefined
  }
}

const KEY_CACHE_SIZE = 10_000
/** Public keys as node:crypto KeyObjects; payers and fee payers repeat, and building one costs about a verification. */
const publicKeys = new Map<string, KeyObject>()

function toPublicKey(raw: Uint8Array): KeyObject {
  const id = toLatin1(raw)
  let key = publicKeys.get(id)
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
    if (publicKeys.size >= KEY_CACHE_SIZE) {
      publicKeys.clear()
    }
    publicKeys.set(id, key)
  }
  return key
}

/** Whether every required signature is valid Ed25519 over the message bytes. */
export function verifyTransactionSignatures(decoded: DecodedTransaction): boolean {
  return decoded.signatures.every((signature, i) => {
    const signer = decoded.staticKeys[i]
    if (!signer) {
      return false
    }
    try {
      return verify(null, decoded.messageBytes, toPublicKey(signer), signature)
    } catch {
      // Not a valid curve point: no signature verifies against it.
      return false
    }
  })
}

/** The same transaction with its recent blockhash replaced (signatures kept, so they no longer verify). */
export function replaceRecentBlockhash(
  decoded: DecodedTransaction,
  blockhash: Uint8Array,
): DecodedTransaction {
  const wire = new Uint8Array(decoded.wire)
  wire.set(blockhash, decoded.blockhashOffset)
  return decodeWireTransaction(wire)
}

/**
 * Computes the fee the runtime charges: 5000 lamports per signature plus the priority fee
 * `ceil(unitPrice * unitLimit / 1e6)` from the ComputeBudget instructions (micro-lamports per CU).
 */
export function computeTransactionFee(
  message: Pick<WireMessage, 'header' | 'staticKeys' | 'instructions'>,
): bigint {
  let unitLimit: bigint | undefined
  let unitPrice = 0n
  let otherInstructions = 0n
  for (const { programIndex, data } of message.instructions) {
    const program = message.staticKeys[programIndex]
    if (!program || !COMPUTE_BUDGET_PROGRAM.equals(program)) {
      otherInstructions++
      continue
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    if (data[0] === 2 && data.length >= 5) {
      unitLimit = BigInt(view.getUint32(1, true))
    } else if (data[0] === 3 && data.length >= 9) {
      unitPrice = view.getBigUint64(1, true)
    }
  }
  // Without an explicit limit the runtime budgets 200k CU per instruction, capped at 1.4M.
  const limit =
    unitLimit ?? (otherInstructions * 200_000n > 1_400_000n ? 1_400_000n : otherInstructions * 200_000n)
  const priority = (unitPrice * limit + 999_999n) / 1_000_000n
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) + priority
}

/** Address lookup table contents by table address (56-byte header, then 32-byte addresses). */
export function readLookupTableAddresses(data: Uint8Array): Address[] {
  const decoder = getAddressDecoder()
  const addresses: Address[] = []
  for (let offset = 56; offset + 32 <= data.length; offset += 32) {
    addresses.push(decoder.decode(data.subarray(offset, offset + 32)))
  }
  return addresses
}
