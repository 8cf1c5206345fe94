import { address, generateKeyPairSigner, getBase58Decoder, type KeyPairSigner } from '@solana/kit'
import { createAssetRegistry, isAppError, REASONS, SOLANA_DEVNET } from '@tollgate/core'
import { beforeAll, describe, expect, test } from 'vitest'
import { TOKEN_PROGRAM } from './constants.js'
import { decodePaymentTransaction } from './decode-payment-transaction.js'
import { createSolanaFacilitator, type SolanaFacilitatorRpc } from './facilitator.js'
import {
  buildPayment,
  buildPaymentInstructions,
  buildPaymentTransaction,
  buildRequirements,
  FAKE_BLOCKHASH,
  type PaymentFixture,
} from './testing/payment-fixtures.js'

let feePayer: KeyPairSigner
let fixture: PaymentFixture

beforeAll(async () => {
  const [payer, payTo] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()])
  feePayer = await generateKeyPairSigner()
  fixture = {
    payer,
    feePayer: feePayer.address,
    mint: address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
    tokenProgram: TOKEN_PROGRAM,
    decimals: 6,
    payTo: payTo.address,
    amount: 700n,
    blockhash: FAKE_BLOCKHASH,
  }
})

const create = (rpc: object, overrides = {}) =>
  createSolanaFacilitator({
    networks: { [SOLANA_DEVNET]: { rpc: rpc as SolanaFacilitatorRpc, feePayers: [feePayer] } },
    assets: createAssetRegistry(),
    confirmTimeoutMs: 60,
    confirmPollIntervalMs: 5,
    ...overrides,
  })

describe('createSolanaFacilitator settle', () => {
  test('behavior: records the signature before sending, and a confirmation timeout is settlement_pending', async () => {
    const recorded: string[] = []
    const sent: { wire: string; recordedAtSend: number }[] = []
    const rpc = {
      sendTransaction: (wire: string) => ({
        send: async () => {
          sent.push({ wire, recordedAtSend: recorded.length })
          return 'ignored'
        },
      }),
      getSignatureStatuses: (signatures: string[]) => ({
        send: async () => ({ context: { slot: 1n }, value: signatures.map(() => null) }),
      }),
      isBlockhashValid: () => ({ send: async () => ({ context: { slot: 1n }, value: true }) }),
    }
    const requirements = buildRequirements(fixture)
    const transaction = await buildPaymentTransaction(fixture, await buildPaymentInstructions(fixture))
    const result = await create(rpc).settle(buildPayment(requirements, transaction), requirements, {
      recordBroadcast: async (tx) => {
        recorded.push(tx)
      },
    })

    expect(result).toMatchObject({
      success: false,
      errorReason: REASONS.settlementPending,
      transaction: recorded[0],
      payer: fixture.payer.address,
    })
    expect(sent).toHaveLength(1)
    expect(sent[0]?.recordedAtSend).toBe(1)
    // The sent transaction carries the fee payer's signature, and its first signature is the id recorded.
    const decoded = decodePaymentTransaction(sent[0]?.wire ?? '')
    const first = decoded?.signatures[0] ?? new Uint8Array()
    expect(getBase58Decoder().decode(first)).toBe(recorded[0])
    const key = feePayer.keyPair.publicKey
    expect(
      await crypto.subtle.verify(
        'Ed25519',
        key,
        first as Uint8Array<ArrayBuffer>,
        decoded?.messageBytes as Uint8Array<ArrayBuffer>,
      ),
    ).toBe(true)
  })

  test('behavior: an invalid payment is refused without recording or sending', async () => {
    const requirements = buildRequirements(fixture)
    const recorded: string[] = []
    const result = await create({}).settle(buildPayment(requirements, 'AQID'), requirements, {
      recordBroadcast: async (tx) => {
        recorded.push(tx)
      },
    })
    expect(result).toEqual({
      success: false,
      errorReason: REASONS.svmCouldNotDecode,
      errorMessage: expect.any(String),
      transaction: '',
      network: SOLANA_DEVNET,
    })
    expect(recorded).toEqual([])
  })
})

describe('createSolanaFacilitator', () => {
  test('behavior: an unreachable RPC during simulation throws rpc_failed, not an invalid payment', async () => {
    const rpc = {
      simulateTransaction: () => ({
        send: async () => {
          throw new TypeError('fetch failed')
        },
      }),
    }
    const requirements = buildRequirements(fixture)
    const transaction = await buildPaymentTransaction(fixture, await buildPaymentInstructions(fixture))
    const error = await create(rpc)
      .verify(buildPayment(requirements, transaction), requirements)
      .catch((e: unknown) => e)
    expect(isAppError(error, 'rpc_failed')).toBe(true)
  })

  test('behavior: getFeePayerBalances reads every fee payer', async () => {
    const rpc = {
      getBalance: () => ({ send: async () => ({ context: { slot: 1n }, value: 1_500_000_000n }) }),
    }
    expect(await create(rpc).getFeePayerBalances()).toEqual([
      { network: SOLANA_DEVNET, address: feePayer.address, lamports: 1_500_000_000n },
    ])
  })

  test('behavior: configuration errors are thrown at creation', () => {
    expect(() => create({}, { networks: { 'eip155:8453': { rpc: {}, feePayers: [feePayer] } } })).toThrow(
      /not a Solana network/,
    )
    expect(() => create({}, { networks: { [SOLANA_DEVNET]: { rpc: {}, feePayers: [] } } })).toThrow(
      /no fee payer/,
    )
  })

  test('behavior: canHandle takes exact payments with a transaction on served networks', async () => {
    const requirements = buildRequirements(fixture)
    const facilitator = create({})
    expect(facilitator.canHandle(buildPayment(requirements, 'AQID'), requirements)).toBe(true)
    expect(facilitator.canHandle(buildPayment(requirements, undefined), requirements)).toBe(false)
    const mainnet = { ...requirements, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' as const }
    expect(facilitator.canHandle(buildPayment(mainnet, 'AQID'), mainnet)).toBe(false)
  })
})
