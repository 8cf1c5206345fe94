import {
  type Address,
  address,
  compressTransactionMessageUsingAddressLookupTables,
  generateKeyPairSigner,
  getBase64Encoder,
  type KeyPairSigner,
} from '@solana/kit'
import { getAddMemoInstruction } from '@solana-program/memo'
import { getTransferSolInstruction } from '@solana-program/system'
import { getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token'
import { createAssetRegistry, REASONS, SOLANA_DEVNET } from '@tollgate/core'
import { beforeAll, describe, expect, test } from 'vitest'
import { LIGHTHOUSE_PROGRAM, MEMO_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './constants.js'
import { createSolanaFacilitator, type SolanaFacilitator, type SolanaFacilitatorRpc } from './facilitator.js'
import { getAssociatedTokenAddress } from './get-associated-token-address.js'
import {
  buildPayment,
  buildPaymentInstructions,
  buildPaymentTransaction,
  buildRequirements,
  FAKE_BLOCKHASH,
  type PaymentFixture,
} from './testing/payment-fixtures.js'

const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const USDC2022 = address('9nJ7oi2ZRKsj1vkFQKzSK8SGZPrmtMzBXfUNFHDnVkte')

let feePayer: KeyPairSigner
let otherFeePayer: KeyPairSigner
let payer: KeyPairSigner
let fixture: PaymentFixture
let simulations: number
let facilitator: SolanaFacilitator

// A fake RPC: simulation succeeds unless a test says otherwise; nothing else is called by verify.
let simulationErr: unknown = null
let rpcDown = false
const rpc = {
  simulateTransaction: () => ({
    send: async () => {
      simulations++
      if (rpcDown) {
        throw new Error('connect ECONNREFUSED')
      }
      return { context: { slot: 1n }, value: { err: simulationErr, logs: [] } }
    },
  }),
} as unknown as SolanaFacilitatorRpc

beforeAll(async () => {
  ;[feePayer, otherFeePayer, payer] = await Promise.all([
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
  ])
  fixture = {
    payer,
    feePayer: feePayer.address,
    mint: USDC,
    tokenProgram: TOKEN_PROGRAM,
    decimals: 6,
    payTo: (await generateKeyPairSigner()).address,
    amount: 2500n,
    blockhash: FAKE_BLOCKHASH,
  }
  const assets = createAssetRegistry([
    {
      network: SOLANA_DEVNET,
      symbol: 'USDC2022',
      address: USDC2022,
      decimals: 6,
      transferMethods: ['solana'],
      tokenProgram: TOKEN_2022_PROGRAM,
    },
  ])
  facilitator = createSolanaFacilitator({
    networks: { [SOLANA_DEVNET]: { rpc, feePayers: [feePayer, otherFeePayer] } },
    assets,
  })
})

async function verify(
  transaction: unknown,
  requirements = buildRequirements(fixture),
  accepted = requirements,
) {
  simulations = 0
  simulationErr = null
  return facilitator.verify({ ...buildPayment(accepted, transaction) }, requirements)
}

const honest = async (overrides: Partial<PaymentFixture> = {}) => {
  const f = { ...fixture, ...overrides }
  return buildPaymentTransaction(f, await buildPaymentInstructions(f))
}

describe('verify (solana)', () => {
  test('default: an honest payment is valid, names the token owner as payer, and is simulated once', async () => {
    const result = await verify(await honest())
    expect(result).toEqual({ isValid: true, payer: payer.address })
    expect(simulations).toBe(1)
  })

  test('behavior: simulate false skips the RPC', async () => {
    simulations = 0
    const requirements = buildRequirements(fixture)
    const result = await facilitator.verify(buildPayment(requirements, await honest()), requirements, {
      simulate: false,
    })
    expect(result.isValid).toBe(true)
    expect(simulations).toBe(0)
  })

  test('behavior: a failing simulation is simulation_failed with the error', async () => {
    const requirements = buildRequirements(fixture)
    const payment = buildPayment(requirements, await honest())
    simulations = 0
    simulationErr = { InstructionError: [2, { Custom: 1 }] }
    const result = await facilitator.verify(payment, requirements)
    expect(result).toMatchObject({
      isValid: false,
      invalidReason: REASONS.svmSimulationFailed,
      payer: payer.address,
    })
    expect(result.invalidMessage).toContain('Custom')
    simulationErr = 'BlockhashNotFound'
    expect((await facilitator.verify(payment, requirements)).invalidMessage).toMatch(/^blockhash not found/)
  })
})

describe('verify (solana): requirements and payload', () => {
  const cases: [
    string,
    () => Promise<[unknown, ReturnType<typeof buildRequirements>, ReturnType<typeof buildRequirements>?]>,
    string,
  ][] = [
    [
      'scheme is not exact',
      async () => [await honest(), buildRequirements(fixture, { scheme: 'upto' })],
      REASONS.svmUnsupportedScheme,
    ],
    [
      'network not served',
      async () => [
        await honest(),
        buildRequirements(fixture, { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }),
      ],
      REASONS.invalidNetwork,
    ],
    [
      'accepted network differs',
      async () => [
        await honest(),
        buildRequirements(fixture),
        buildRequirements(fixture, { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }),
      ],
      REASONS.svmNetworkMismatch,
    ],
    [
      'accepted amount differs',
      async () => [await honest(), buildRequirements(fixture), buildRequirements(fixture, { amount: '1' })],
      REASONS.invalidPaymentRequirements,
    ],
    [
      'accepted extra lacks a term of the requirements',
      async () => [
        await honest(),
        buildRequirements(fixture, { extra: { feePayer: feePayer.address, memo: 'x' } }),
        buildRequirements(fixture),
      ],
      REASONS.invalidPaymentRequirements,
    ],
    [
      'zero amount',
      async () => [await honest({ amount: 0n }), buildRequirements({ ...fixture, amount: 0n })],
      REASONS.invalidPaymentRequirements,
    ],
    [
      'asset not allowlisted',
      async () => {
        const mint = (await generateKeyPairSigner()).address
        return [await honest({ mint }), buildRequirements({ ...fixture, mint })]
      },
      REASONS.invalidPaymentRequirements,
    ],
    [
      'fee payer missing',
      async () => [await honest(), buildRequirements(fixture, { extra: {} })],
      REASONS.svmMissingFeePayer,
    ],
    [
      'fee payer not ours',
      async () => {
        const stranger = (await generateKeyPairSigner()).address
        return [await honest({ feePayer: stranger }), buildRequirements({ ...fixture, feePayer: stranger })]
      },
      REASONS.svmFeePayerNotManaged,
    ],
    ['transaction missing', async () => [undefined, buildRequirements(fixture)], REASONS.svmTransaction],
    [
      'transaction not base64 of a transaction',
      async () => ['AQID', buildRequirements(fixture)],
      REASONS.svmCouldNotDecode,
    ],
    [
      'transaction with non-canonical base64',
      async () => [`${await honest()}!`, buildRequirements(fixture)],
      REASONS.svmCouldNotDecode,
    ],
    [
      'transaction paid by another pool key',
      async () => [await honest({ feePayer: otherFeePayer.address }), buildRequirements(fixture)],
      REASONS.svmFeePayerMismatch,
    ],
  ]
  test.each(cases)('behavior: %s', async (_name, build, reason) => {
    const [transaction, requirements, accepted] = await build()
    const result = await verify(transaction, requirements, accepted ?? requirements)
    expect(result).toMatchObject({ isValid: false, invalidReason: reason })
    expect(simulations).toBe(0)
  })
})

describe('verify (solana): transaction checks', () => {
  const refused = async (transaction: string, reason: string, requirements = buildRequirements(fixture)) => {
    const result = await verify(transaction, requirements)
    expect(result).toMatchObject({ isValid: false, invalidReason: reason })
    expect(result.invalidMessage).toBeTruthy()
    expect(simulations).toBe(0)
    return result
  }

  // The simulation goes out while the signatures are checked, so these may have simulated once.
  const badSignature = async (transaction: string) => {
    const result = await verify(transaction)
    expect(result).toMatchObject({
      isValid: false,
      invalidReason: REASONS.svmSignatureInvalid,
      payer: payer.address,
    })
    expect(simulations).toBeLessThanOrEqual(1)
  }

  const tampered = async () => {
    const bytes = new Uint8Array(getBase64Encoder().encode(await honest()))
    bytes[1 + 64 + 5] = (bytes[1 + 64 + 5] ?? 0) ^ 1
    return Buffer.from(bytes).toString('base64')
  }

  test('behavior: a tampered payer signature is signature_invalid', async () => {
    await badSignature(await tampered())
  })

  test('behavior: a missing payer signature is signature_invalid', async () => {
    const noop = { ...fixture, payer: payer }
    const instructions = await buildPaymentInstructions(noop, { authority: payer.address })
    await badSignature(await buildPaymentTransaction(noop, instructions))
  })

  test('behavior: concurrent verifies (signatures checked on the thread pool) give the same verdicts', async () => {
    const requirements = buildRequirements(fixture)
    const transactions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? honest() : tampered())),
    )
    const alone: boolean[] = []
    for (const transaction of transactions) {
      alone.push((await facilitator.verify(buildPayment(requirements, transaction), requirements)).isValid)
    }
    const together = await Promise.all(
      transactions.map(
        async (transaction) =>
          (await facilitator.verify(buildPayment(requirements, transaction), requirements)).isValid,
      ),
    )
    expect(alone).toEqual([true, false, true, false, true, false, true, false])
    expect(together).toEqual(alone)
  })

  test('behavior: a bad signature is signature_invalid whatever the simulation says or throws', async () => {
    const requirements = buildRequirements(fixture)
    const payment = buildPayment(requirements, await tampered())
    simulationErr = { InstructionError: [2, { Custom: 1 }] }
    expect(await facilitator.verify(payment, requirements)).toMatchObject({
      invalidReason: REASONS.svmSignatureInvalid,
    })
    simulationErr = null
    rpcDown = true
    try {
      expect(await facilitator.verify(payment, requirements)).toMatchObject({
        invalidReason: REASONS.svmSignatureInvalid,
      })
      // With valid signatures the RPC failure is the caller's error, as before.
      const honestPayment = buildPayment(requirements, await honest())
      await expect(facilitator.verify(honestPayment, requirements)).rejects.toMatchObject({
        code: 'rpc_failed',
      })
    } finally {
      rpcDown = false
    }
  })

  test('behavior: amount, mint and recipient must match the requirements', async () => {
    const f = fixture
    await refused(
      await buildPaymentTransaction(f, await buildPaymentInstructions(f, { amount: 2499n })),
      REASONS.svmAmountMismatch,
    )
    const other = (await generateKeyPairSigner()).address
    const elsewhere = await getAssociatedTokenAddress(other, f.mint, f.tokenProgram)
    await refused(
      await buildPaymentTransaction(f, await buildPaymentInstructions(f, { destination: elsewhere })),
      REASONS.svmRecipientMismatch,
    )
    await refused(await honest({ mint: USDC2022, tokenProgram: TOKEN_2022_PROGRAM }), REASONS.svmMintMismatch)
    // The right mint under the wrong program: the allowlist pins each mint's program.
    await refused(await honest({ tokenProgram: TOKEN_2022_PROGRAM }), REASONS.svmMintMismatch)
  })

  test('behavior: the memo the requirements ask for must be there exactly once', async () => {
    const memo = 'order-42'
    const requirements = buildRequirements({ ...fixture, memo })
    const withMemo = { ...fixture, memo }
    expect(await verify(await honest({ memo }), requirements)).toMatchObject({ isValid: true })
    await refused(await honest({ memo: 'order-43' }), REASONS.svmMemoMismatch, requirements)
    const twice = [
      ...(await buildPaymentInstructions(withMemo)),
      getAddMemoInstruction({ memo }, { programAddress: MEMO_PROGRAM }),
    ]
    await refused(await buildPaymentTransaction(withMemo, twice), REASONS.svmMemoCount, requirements)
  })

  test('behavior: address lookup tables are refused', async () => {
    const destination = await getAssociatedTokenAddress(fixture.payTo, fixture.mint, fixture.tokenProgram)
    const table = (await generateKeyPairSigner()).address
    const transaction = await buildPaymentTransaction(fixture, await buildPaymentInstructions(fixture), (m) =>
      compressTransactionMessageUsingAddressLookupTables(
        m as Parameters<typeof compressTransactionMessageUsingAddressLookupTables>[0],
        { [table]: [destination] },
      ),
    )
    await refused(transaction, REASONS.svmTransaction)
  })

  test('behavior: layout: three to six instructions, compute budget first, TransferChecked third', async () => {
    const [limit, price, transfer, memo] = await buildPaymentInstructions(fixture)
    if (!limit || !price || !transfer || !memo) {
      throw new Error('fixture')
    }
    await refused(await buildPaymentTransaction(fixture, [limit, price]), REASONS.svmInstructionsLength)
    await refused(
      await buildPaymentTransaction(fixture, [limit, price, transfer, memo, memo, memo, memo]),
      REASONS.svmInstructionsLength,
    )
    await refused(
      await buildPaymentTransaction(fixture, [price, limit, transfer]),
      REASONS.svmComputeLimitInstruction,
    )
    await refused(
      await buildPaymentTransaction(fixture, [limit, memo, transfer]),
      REASONS.svmComputePriceInstruction,
    )
    await refused(
      await buildPaymentTransaction(fixture, [limit, price, memo, transfer]),
      REASONS.svmNoTransferInstruction,
    )
    expect(await verify(await buildPaymentTransaction(fixture, [limit, price, transfer]))).toMatchObject({
      isValid: true,
    })
    // Wallet-injected Lighthouse assertions are allowed after the transfer.
    const lighthouse = { programAddress: LIGHTHOUSE_PROGRAM, data: new Uint8Array([1, 2, 3]) }
    expect(
      await verify(await buildPaymentTransaction(fixture, [limit, price, transfer, memo, lighthouse])),
    ).toMatchObject({ isValid: true })
  })
})

describe('verify (solana): fee-payer drain attempts', () => {
  const refused = async (transaction: string, reason: string) => {
    const result = await verify(transaction)
    expect(result).toMatchObject({ isValid: false, invalidReason: reason })
    expect(simulations).toBe(0)
  }

  test('behavior: the fee payer as transfer authority is fee_payer_transferring_funds', async () => {
    const instructions = await buildPaymentInstructions(fixture, { authority: feePayer.address })
    await refused(await buildPaymentTransaction(fixture, instructions), REASONS.svmFeePayerTransferringFunds)
    // Another key of the pool is refused as authority too.
    const other = await buildPaymentInstructions(fixture, { authority: otherFeePayer })
    await refused(await buildPaymentTransaction(fixture, other), REASONS.svmFeePayerTransferringFunds)
  })

  test('behavior: the fee payer inside any instruction is fee_payer_included_in_instruction_accounts', async () => {
    const [limit, price, transfer] = await buildPaymentInstructions(fixture)
    if (!limit || !price || !transfer) {
      throw new Error('fixture')
    }
    const memoNamingFeePayer = getAddMemoInstruction(
      { memo: 'hi', signers: [createNoopSignerFor(feePayer.address)] },
      { programAddress: MEMO_PROGRAM },
    )
    await refused(
      await buildPaymentTransaction(fixture, [limit, price, transfer, memoNamingFeePayer]),
      REASONS.svmFeePayerInInstructionAccounts,
    )
    // The fee payer's wallet itself as the transfer destination.
    const toFeePayer = await buildPaymentInstructions(fixture, { destination: feePayer.address })
    await refused(
      await buildPaymentTransaction(fixture, toFeePayer),
      REASONS.svmFeePayerInInstructionAccounts,
    )
  })

  test('behavior: compute unit limit and price above the caps are refused', async () => {
    const limitTooHigh = await buildPaymentInstructions(fixture, { units: 200_001 })
    await refused(await buildPaymentTransaction(fixture, limitTooHigh), REASONS.svmComputeLimitTooHigh)
    const priceTooHigh = await buildPaymentInstructions(fixture, { microLamports: 50_001n })
    await refused(await buildPaymentTransaction(fixture, priceTooHigh), REASONS.svmComputePriceTooHigh)
    const atCaps = await buildPaymentInstructions(fixture, { units: 200_000, microLamports: 50_000n })
    expect(await verify(await buildPaymentTransaction(fixture, atCaps))).toMatchObject({ isValid: true })
  })

  test('behavior: an extra program instruction is unknown_optional_instruction', async () => {
    const stranger = await generateKeyPairSigner()
    const extra = getTransferSolInstruction({ source: stranger, destination: payer.address, amount: 1n })
    await refused(
      await buildPaymentTransaction(fixture, [...(await buildPaymentInstructions(fixture)), extra]),
      // The stranger signs too, so the signer cap fires first.
      REASONS.svmExcessiveSigners,
    )
    const byPayer = getTransferSolInstruction({ source: payer, destination: stranger.address, amount: 1n })
    await refused(
      await buildPaymentTransaction(fixture, [...(await buildPaymentInstructions(fixture)), byPayer]),
      REASONS.svmUnknownOptionalInstruction,
    )
  })

  test('behavior: an extra signer is excessive_signers', async () => {
    const stranger = await generateKeyPairSigner()
    const memo = getAddMemoInstruction(
      { memo: 'co-signed', signers: [stranger] },
      { programAddress: MEMO_PROGRAM },
    )
    await refused(
      await buildPaymentTransaction(fixture, [...(await buildPaymentInstructions(fixture)), memo]),
      REASONS.svmExcessiveSigners,
    )
  })

  test('behavior: creating a token account is refused, whoever pays the rent', async () => {
    const createAta = (rentPayer: KeyPairSigner | Address) =>
      getCreateAssociatedTokenIdempotentInstruction({
        payer: typeof rentPayer === 'string' ? createNoopSignerFor(rentPayer) : rentPayer,
        ata: address('11111111111111111111111111111112'),
        owner: fixture.payTo,
        mint: fixture.mint,
        tokenProgram: fixture.tokenProgram,
      })
    const [limit, price, transfer] = await buildPaymentInstructions(fixture)
    if (!limit || !price || !transfer) {
      throw new Error('fixture')
    }
    const byFeePayer = await buildPaymentTransaction(fixture, [
      limit,
      price,
      transfer,
      createAta(feePayer.address),
    ])
    await refused(byFeePayer, REASONS.svmFeePayerInInstructionAccounts)
    const byPayer = await buildPaymentTransaction(fixture, [limit, price, transfer, createAta(payer)])
    const result = await verify(byPayer)
    expect(result).toMatchObject({ isValid: false, invalidReason: REASONS.svmUnknownOptionalInstruction })
    expect(result.invalidMessage).toContain('creates a token account')
  })
})

describe('getSettlementKey / getSupportedExtra / getSigners', () => {
  test('default: the key is the message hash, the same for the same message whatever the signatures', async () => {
    const requirements = buildRequirements(fixture)
    const transaction = await honest()
    const key = facilitator.getSettlementKey(buildPayment(requirements, transaction), requirements)
    expect(key).toMatch(/^solana:[A-Za-z0-9+/]{43}=$/)
    const bytes = new Uint8Array(getBase64Encoder().encode(transaction))
    bytes[70] = (bytes[70] ?? 0) ^ 1
    const resigned = Buffer.from(bytes).toString('base64')
    expect(facilitator.getSettlementKey(buildPayment(requirements, resigned), requirements)).toBe(key)
    expect(facilitator.getSettlementKey(buildPayment(requirements, await honest()), requirements)).not.toBe(
      key,
    )
    expect(facilitator.getSettlementKey(buildPayment(requirements, 'AQID'), requirements)).toBeUndefined()
  })

  test('default: fee payers rotate through the pool and all are signers', () => {
    const seen = new Set([0, 1, 2, 3].map(() => facilitator.getSupportedExtra(SOLANA_DEVNET)?.feePayer))
    expect(seen).toEqual(new Set([feePayer.address, otherFeePayer.address]))
    expect(facilitator.getSigners(SOLANA_DEVNET).sort()).toEqual(
      [feePayer.address, otherFeePayer.address].sort(),
    )
    expect(facilitator.getSupportedExtra('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBeUndefined()
  })
})

function createNoopSignerFor(owner: Address) {
  // A signer that signs nothing: the account is marked signer, the signature slot stays empty.
  return { address: owner, signTransactions: async () => [] } as unknown as KeyPairSigner
}
