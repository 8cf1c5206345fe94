import { createPublicKey, verify } from 'node:crypto'
import {
  type Address,
  type CompiledTransactionMessageWithLifetime,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type LegacyCompiledTransactionMessage,
  type Transaction,
  type V0CompiledTransactionMessage,
} from '@solana/kit'
import { createInvalidParamsError } from './rpc-error.js'

/** A compiled legacy or v0 message with its blockhash (v1 messages are not live on any cluster yet). */
export type CompiledMessage = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) &
  CompiledTransactionMessageWithLifetime

/** A wire transaction decoded once: the kit transaction, its compiled message and its first signature (base58). */
export type DecodedTransaction = {
  wire: Uint8Array
  transaction: Transaction
  message: CompiledMessage
  signature: string
}

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'
/** Lamports charged per required signature (the cluster's fixed base fee). */
export const LAMPORTS_PER_SIGNATURE = 5000n
// Ed25519 SPKI DER prefix: lets node:crypto verify with a raw 32-byte public key.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** Decodes wire bytes into a transaction, throwing the RPC's `-32602` wording on malformed input. */
export function decodeWireTransaction(wire: Uint8Array): DecodedTransaction {
  try {
    const transaction = getTransactionDecoder().decode(wire)
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
    if (message.version === 1) {
      throw new TypeError('unsupported transaction version 1')
    }
    const signer = message.staticAccounts[0]
    const signatureBytes = signer ? transaction.signatures[signer] : undefined
    const signature = getBase58Decoder().decode(new Uint8Array(signatureBytes ?? new Uint8Array(64)))
    return { wire, transaction, message, signature }
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause)
    throw createInvalidParamsError(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${detail}`,
    )
  }
}

/** Whether every required signature is present and valid Ed25519 over the message bytes. */
export function verifyTransactionSignatures(decoded: DecodedTransaction): boolean {
  const { message, transaction } = decoded
  const signers = message.staticAccounts.slice(0, message.header.numSignerAccounts)
  return signers.every((signer) => {
    const signature = transaction.signatures[signer]
    if (!signature) {
      return false
    }
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, new Uint8Array(getAddressEncoder().encode(signer))]),
      format: 'der',
      type: 'spki',
    })
    return verify(null, new Uint8Array(transaction.messageBytes), key, new Uint8Array(signature))
  })
}

/** Returns the same transaction with its recent blockhash replaced (signatures kept, so they no longer verify). */
export function replaceRecentBlockhash(decoded: DecodedTransaction, blockhash: string): DecodedTransaction {
  const message = { ...decoded.message, lifetimeToken: blockhash }
  const messageBytes = getCompiledTransactionMessageEncoder().encode(message)
  const transaction = { ...decoded.transaction, messageBytes } as Transaction
  const wire = new Uint8Array(getTransactionEncoder().encode(transaction))
  return { ...decoded, wire, transaction, message }
}

/**
 * Computes the fee the runtime charges: 5000 lamports per signature plus the priority fee
 * `ceil(unitPrice * unitLimit / 1e6)` from the ComputeBudget instructions (micro-lamports per CU).
 */
export function computeTransactionFee(message: CompiledMessage): bigint {
  let unitLimit: bigint | undefined
  let unitPrice = 0n
  let otherInstructions = 0n
  for (const instruction of message.instructions) {
    const program = message.staticAccounts[instruction.programAddressIndex]
    const data = instruction.data ?? new Uint8Array()
    if (program !== COMPUTE_BUDGET_PROGRAM) {
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
