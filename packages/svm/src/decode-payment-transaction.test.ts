import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { beforeAll, describe, expect, test } from 'vitest'
import { TOKEN_PROGRAM } from './constants.js'
import { decodePaymentTransaction } from './decode-payment-transaction.js'
import { toAddress, toRawKey } from './raw-keys.js'
import {
  buildPaymentInstructions,
  buildPaymentTransaction,
  FAKE_BLOCKHASH,
  type PaymentFixture,
} from './testing/payment-fixtures.js'

let fixture: PaymentFixture
let honest: string

beforeAll(async () => {
  const [payer, feePayer, payTo, mint] = await Promise.all(
    Array.from({ length: 4 }, () => generateKeyPairSigner()),
  )
  fixture = {
    payer: payer as KeyPairSigner,
    feePayer: (feePayer as KeyPairSigner).address,
    mint: (mint as KeyPairSigner).address,
    tokenProgram: TOKEN_PROGRAM,
    decimals: 6,
    payTo: (payTo as KeyPairSigner).address,
    amount: 5n,
    blockhash: FAKE_BLOCKHASH,
  }
  honest = await buildPaymentTransaction(fixture, await buildPaymentInstructions(fixture))
})

// Wire layout of a two-signer v0 payment: [count][2 × 64-byte signatures][0x80][3-byte header][key count][keys…]
const KEYS_OFFSET = 1 + 128 + 1 + 3 + 1
const edit = (base64: string, change: (bytes: Buffer) => Buffer | undefined) => {
  const bytes = Buffer.from(base64, 'base64')
  return (change(bytes) ?? bytes).toString('base64')
}

describe('decodePaymentTransaction', () => {
  test('default: decodes a v0 payment with raw keys, signatures and instruction views', () => {
    const decoded = decodePaymentTransaction(honest)
    expect(decoded).toBeDefined()
    const { message, signatures, messageBytes, wire } = decoded as NonNullable<typeof decoded>
    expect(message.version).toBe(0)
    expect(message.numSigners).toBe(2)
    expect(toAddress(message.accountKeys[0] as NonNullable<(typeof message.accountKeys)[0]>)).toBe(
      fixture.feePayer,
    )
    expect(message.accountKeys).toContain(toRawKey(fixture.payer.address))
    expect(toAddress(message.blockhash)).toBe(FAKE_BLOCKHASH)
    expect(message.instructions.map((i) => i.data[0])).toEqual([2, 3, 12, expect.any(Number)])
    expect(signatures[0]?.every((b) => b === 0)).toBe(true)
    expect(signatures[1]?.some((b) => b !== 0)).toBe(true)
    expect(messageBytes.length).toBe(wire.length - 1 - 128)
    expect(message.lookupTableCount).toBe(0)
  })

  test('behavior: decodes a legacy message', async () => {
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayer(fixture.feePayer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: FAKE_BLOCKHASH, lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstructions([], m),
    )
    const wire = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message))
    expect(decodePaymentTransaction(wire)?.message.version).toBe('legacy')
  })

  test.each([
    ['empty', () => ''],
    ['not base64 of a transaction', () => 'AQID'],
    ['non-canonical base64 (a stray character)', () => `${honest.slice(0, 8)}*${honest.slice(8)}`],
    ['longer than 1232 bytes', () => Buffer.alloc(1233, 1).toString('base64')],
    ['a trailing byte', () => edit(honest, (b) => Buffer.concat([b, Buffer.from([0])]))],
    ['truncated', () => edit(honest, (b) => b.subarray(0, b.length - 1))],
    [
      'one signature for two signers',
      () => edit(honest, (b) => Buffer.concat([Buffer.from([1]), b.subarray(65)])),
    ],
    [
      'a duplicated account key',
      () => edit(honest, (b) => void b.copy(b, KEYS_OFFSET + 64, KEYS_OFFSET + 32, KEYS_OFFSET + 64)),
    ],
    [
      'message version 1',
      () =>
        edit(honest, (b) => {
          b[129] = 0x81
          return b
        }),
    ],
    [
      'an instruction whose program is the fee payer',
      () => {
        const bytes = Buffer.from(honest, 'base64')
        const decoded = decodePaymentTransaction(honest)
        const first = decoded?.message.instructions[0]
        // The program index byte sits right before the instruction's account-count byte.
        const at = first && decoded ? first.accounts.byteOffset - decoded.wire.byteOffset - 2 : 0
        const copy = Buffer.from(bytes)
        copy[at] = 0
        return copy.toString('base64')
      },
    ],
  ])('behavior: refuses %s', (_name, build) => {
    expect(decodePaymentTransaction(build())).toBeUndefined()
  })
})
