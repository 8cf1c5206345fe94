import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  computeTransactionFee,
  decodeWireMessage,
  decodeWireTransaction,
  replaceRecentBlockhash,
  verifyTransactionSignatures,
} from './decode-wire-transaction.js'
import { RpcError } from './rpc-error.js'

const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111')
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')
const BLOCKHASH = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi' as Blockhash

let feePayer: KeyPairSigner
let payer: KeyPairSigner

beforeAll(async () => {
  ;[feePayer, payer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()])
})

function budget(limit: number, microLamports: bigint): Instruction[] {
  const limitData = new Uint8Array(5)
  limitData[0] = 2
  new DataView(limitData.buffer).setUint32(1, limit, true)
  const priceData = new Uint8Array(9)
  priceData[0] = 3
  new DataView(priceData.buffer).setBigUint64(1, microLamports, true)
  return [
    { programAddress: COMPUTE_BUDGET, data: limitData },
    { programAddress: COMPUTE_BUDGET, data: priceData },
  ]
}

/** A memo signed by `payer`, paid by `feePayer` (whose signature slot stays empty unless `both`). */
async function build(
  options: { version?: 0 | 'legacy'; instructions?: Instruction[]; both?: boolean } = {},
): Promise<{ wire: Uint8Array; signature: string }> {
  const memo: Instruction = {
    programAddress: MEMO,
    accounts: [{ address: payer.address, role: 2 }],
    data: new TextEncoder().encode('hello'),
  }
  const message = pipe(
    createTransactionMessage({ version: options.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 1n }, m),
    (m) => appendTransactionMessageInstructions([...(options.instructions ?? []), memo], m),
  )
  const signers = options.both ? [feePayer.keyPair, payer.keyPair] : [payer.keyPair]
  const signed = await partiallySignTransaction(signers, compileTransaction(message))
  const first = signed.signatures[feePayer.address]
  return {
    wire: new Uint8Array(getTransactionEncoder().encode(signed)),
    signature: getBase58Decoder().decode(first ?? new Uint8Array(64)),
  }
}

function refusal(run: () => unknown): RpcError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError)
    return error as RpcError
  }
  throw new Error('expected an RpcError')
}

describe('decodeWireTransaction', () => {
  test('default: keys, blockhash, signature and message agree with kit', async () => {
    for (const version of [0, 'legacy'] as const) {
      const { wire, signature } = await build({ version, both: true })
      const decoded = decodeWireTransaction(wire)
      const kitMessage = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes)
      expect(decoded.version).toBe(version)
      expect(decoded.signature).toBe(signature)
      expect(decoded.blockhash).toBe(BLOCKHASH)
      expect(decoded.staticKeys.map((k) => getBase58Decoder().decode(k))).toEqual(kitMessage.staticAccounts)
      expect(decoded.header).toEqual(kitMessage.header)
      expect(decoded.message).toEqual(kitMessage)
      expect(decoded.instructions.map((i) => decoded.staticKeys[i.programIndex])).toHaveLength(1)
      expect(decoded.lookups).toEqual([])
    }
  })

  test('behavior: trailing bytes are dropped, as agave ignores them', async () => {
    const { wire } = await build()
    const decoded = decodeWireTransaction(new Uint8Array([...wire, 1, 2, 3]))
    expect(decoded.wire).toEqual(wire)
  })

  test('error: truncated input, an unknown version and a signature count mismatch are -32602', async () => {
    const { wire } = await build()
    expect(refusal(() => decodeWireTransaction(wire.subarray(0, wire.length - 1))).code).toBe(-32602)
    expect(refusal(() => decodeWireTransaction(new Uint8Array())).message).toMatch(
      /^Invalid params: failed to deserialize solana_transaction::versioned::VersionedTransaction/,
    )
    const v1 = new Uint8Array(wire)
    v1[1 + 2 * 64] = 0x81
    expect(refusal(() => decodeWireTransaction(v1)).message).toContain('unsupported transaction version 1')
    const oneSignature = new Uint8Array([1, ...wire.subarray(1 + 64)])
    expect(refusal(() => decodeWireTransaction(oneSignature)).message).toContain('expects 2 signatures')
  })
})

describe('verifyTransactionSignatures', () => {
  test('behavior: true only when every required signer signed the message', async () => {
    expect(verifyTransactionSignatures(decodeWireTransaction((await build({ both: true })).wire))).toBe(true)
    expect(verifyTransactionSignatures(decodeWireTransaction((await build()).wire))).toBe(false)
    const tampered = new Uint8Array((await build({ both: true })).wire)
    // The memo's last byte (a v0 message ends with the lookup-table count).
    tampered[tampered.length - 2] = (tampered[tampered.length - 2] ?? 0) ^ 1
    expect(verifyTransactionSignatures(decodeWireTransaction(tampered))).toBe(false)
  })
})

describe('replaceRecentBlockhash', () => {
  test('behavior: only the blockhash changes; the original is untouched', async () => {
    const { wire } = await build({ both: true })
    const decoded = decodeWireTransaction(wire)
    const other = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi' as Address
    const replaced = replaceRecentBlockhash(decoded, new Uint8Array(getBase58Encoder().encode(other)))
    expect(replaced.blockhash).toBe(other)
    expect(decoded.blockhash).toBe(BLOCKHASH)
    expect(replaced.message.staticAccounts).toEqual(decoded.message.staticAccounts)
    expect(verifyTransactionSignatures(replaced)).toBe(false)
  })
})

describe('computeTransactionFee', () => {
  test('default: 5000 per signature plus ceil(price × limit / 10^6)', async () => {
    const priced = decodeWireTransaction((await build({ instructions: budget(20_000, 1_500n) })).wire)
    expect(computeTransactionFee(priced)).toBe(2n * 5000n + 30n)
    const plain = decodeWireTransaction((await build()).wire)
    expect(computeTransactionFee(plain)).toBe(10_000n)
    // A price without a limit: 200k CU per other instruction.
    const unlimited = decodeWireTransaction((await build({ instructions: budget(0, 1n).slice(1) })).wire)
    expect(computeTransactionFee(unlimited)).toBe(10_000n + 1n)
  })

  test('behavior: a bare message (getFeeForMessage) is parsed the same way', async () => {
    const decoded = decodeWireTransaction((await build({ instructions: budget(10_000, 100n) })).wire)
    const message = decodeWireMessage(decoded.messageBytes)
    expect(message && computeTransactionFee(message)).toBe(computeTransactionFee(decoded))
    expect(decodeWireMessage(decoded.messageBytes.subarray(0, 10))).toBeUndefined()
  })
})
