import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { address, generateKeyPairSigner, getAddressEncoder } from '@solana/kit'
import { createAssetRegistry, REASONS, SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { TOKEN_PROGRAM } from './constants.js'
import { createSolanaFacilitator, type SolanaFacilitatorRpc } from './facilitator.js'
import { getKeyCacheSizes, KEY_CACHE_SIZE } from './raw-keys.js'
import {
  buildPayment,
  buildPaymentInstructions,
  buildPaymentTransaction,
  buildRequirements,
  FAKE_BLOCKHASH,
} from './testing/payment-fixtures.js'
import { getSignerKeyCacheSizes } from './verify-transaction-signatures.js'

// Hostile traffic: every request names a new payer (its key swapped into one honest transaction,
// so its signature fails). Each payer passes through the key caches, which are keyed by caller input.
const PAYERS = 100_000
const BATCH = 1_000
const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

describe('solana verify under 100,000 distinct payers', () => {
  test('behavior: the key caches stay at their bound and the heap stays flat', async () => {
    const [feePayer, payer, merchant] = await Promise.all([
      generateKeyPairSigner(),
      generateKeyPairSigner(),
      generateKeyPairSigner(),
    ])
    const rpc = {
      simulateTransaction: () => ({
        send: async () => ({ context: { slot: 1n }, value: { err: null, logs: [] } }),
      }),
    } as unknown as SolanaFacilitatorRpc
    const facilitator = createSolanaFacilitator({
      networks: { [SOLANA_DEVNET]: { rpc, feePayers: [feePayer] } },
      assets: createAssetRegistry(),
    })
    const fixture = {
      payer,
      feePayer: feePayer.address,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
      decimals: 6,
      payTo: merchant.address,
      amount: 2500n,
      blockhash: FAKE_BLOCKHASH,
    }
    const requirements = buildRequirements(fixture)
    const wire = Buffer.from(
      await buildPaymentTransaction(fixture, await buildPaymentInstructions(fixture)),
      'base64',
    )
    const payerOffset = wire.indexOf(Buffer.from(getAddressEncoder().encode(payer.address)))
    expect(payerOffset).toBeGreaterThan(0)
    const withPayer = (i: number) => {
      const bytes = Buffer.from(wire)
      bytes.fill(0x5a, payerOffset, payerOffset + 32)
      bytes.writeUInt32BE(i, payerOffset)
      return bytes.toString('base64')
    }
    const verifyRange = async (from: number, to: number) => {
      for (let start = from; start < to; start += BATCH) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
            const payment = buildPayment(requirements, withPayer(start + k))
            return facilitator.verify(payment, requirements)
          }),
        )
        expect(answers.every((a) => a.invalidReason === REASONS.svmSignatureInvalid)).toBe(true)
      }
    }
    const sizes = () => ({ ...getKeyCacheSizes(), ...getSignerKeyCacheSizes() })

    await verifyRange(0, 2 * KEY_CACHE_SIZE)
    const settled = heapAfterGc()
    const full = sizes()
    for (const size of Object.values(full)) {
      expect(size).toBeLessThanOrEqual(KEY_CACHE_SIZE)
    }
    // The payers went through the caches (the signer keys were built, on the loop or the pool).
    expect(full.addressByRaw).toBe(KEY_CACHE_SIZE)
    expect(full.keyObjects + full.cryptoKeys).toBeGreaterThanOrEqual(KEY_CACHE_SIZE)

    await verifyRange(2 * KEY_CACHE_SIZE, PAYERS)
    const after = heapAfterGc()
    for (const size of Object.values(sizes())) {
      expect(size).toBeLessThanOrEqual(KEY_CACHE_SIZE)
    }
    expect(after - settled).toBeLessThan(4 * 1024 * 1024)
  }, 120_000)
})
