import {
  type Address,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Transaction,
} from '@solana/kit'

/** A compiled legacy or v0 message with its recent blockhash. */
export type PaymentMessage = Exclude<CompiledTransactionMessage, { version: 1 }> &
  CompiledTransactionMessageWithLifetime

/** A payment transaction decoded once: wire bytes, the kit transaction and its compiled message. */
export type DecodedPaymentTransaction = {
  wire: Uint8Array
  transaction: Transaction
  message: PaymentMessage
}

/** Largest wire transaction the cluster accepts (IPv6 MTU minus headers), in bytes. */
const MAX_WIRE_BYTES = 1232
const MAX_BASE64_CHARS = Math.ceil(MAX_WIRE_BYTES / 3) * 4

const transactionDecoder = getTransactionDecoder()
const messageDecoder = getCompiledTransactionMessageDecoder()

/**
 * Decodes a base64 wire transaction strictly: canonical base64, at most 1232 bytes, no trailing
 * bytes, a legacy or v0 message, distinct static accounts and in-range account indexes (what the
 * runtime's sanitizer refuses). Returns `undefined` for anything else.
 */
export function decodePaymentTransaction(base64: string): DecodedPaymentTransaction | undefined {
  if (base64.length === 0 || base64.length > MAX_BASE64_CHARS) {
    return undefined
  }
  const wire = Buffer.from(base64, 'base64')
  // Buffer skips invalid characters; requiring the canonical form means the bytes we check are the
  // bytes an RPC node would decode from the same string.
  if (wire.toString('base64') !== base64) {
    return undefined
  }
  try {
    const [transaction, end] = transactionDecoder.read(wire, 0)
    const message = messageDecoder.decode(transaction.messageBytes) as CompiledTransactionMessage &
      CompiledTransactionMessageWithLifetime
    if (end !== wire.length || message.version === 1 || !isSane(message)) {
      return undefined
    }
    return { wire: new Uint8Array(wire.buffer, wire.byteOffset, wire.byteLength), transaction, message }
  } catch {
    return undefined
  }
}

function isSane(message: Exclude<CompiledTransactionMessage, { version: 1 }>): boolean {
  const { header, staticAccounts, instructions } = message
  const accountCount = staticAccounts.length
  if (
    header.numSignerAccounts < 1 ||
    header.numReadonlySignerAccounts >= header.numSignerAccounts ||
    header.numSignerAccounts + header.numReadonlyNonSignerAccounts > accountCount ||
    new Set<Address>(staticAccounts).size !== accountCount
  ) {
    return false
  }
  // Lookup-table accounts come after the static ones; indexes into them are checked by the caller,
  // which refuses lookup tables outright.
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : []
  const loaded = lookups.reduce((n, l) => n + l.readonlyIndexes.length + l.writableIndexes.length, 0)
  return instructions.every(
    (instruction) =>
      instruction.programAddressIndex > 0 &&
      instruction.programAddressIndex < accountCount &&
      (instruction.accountIndices ?? []).every((index) => index < accountCount + loaded),
  )
}
