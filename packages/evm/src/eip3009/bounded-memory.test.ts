import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { REASONS } from '@tollgate/core'
import { bytesToHex, type Hex, serializeErc6492Signature } from 'viem'
import { describe, expect, test } from 'vitest'
import { CODE_CACHE_SIZE, getCodeCache } from '../signatures/code-cache.js'
import {
  assets,
  buildPayment,
  buildRequirements,
  createFakeChain,
  createFakeRelayer,
  MERCHANT,
  NETWORK,
  NOW_MS,
} from '../testing/fake-chain.js'
import { createEip3009Facilitator } from './facilitator.js'

// Hostile traffic: every request names a new payer. The payers' ERC-6492 signatures make verify
// look up each payer's code (the cache keyed by caller input) and then refuse the factory.
const PAYERS = 100_000
const BATCH = 1_000

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

function payerAddress(i: number): Hex {
  return `0x${(i + 1).toString(16).padStart(40, '0')}`
}

describe('eip3009 verify under 100,000 distinct payers', () => {
  test('behavior: the code cache stays at its bound and the heap stays flat', async () => {
    const chain = createFakeChain()
    const facilitator = createEip3009Facilitator({
      networks: { [NETWORK]: { client: chain.client, relayer: createFakeRelayer().relayer } },
      assets,
      now: () => NOW_MS,
    })
    const requirements = buildRequirements()
    const signature = serializeErc6492Signature({
      address: '0x00000000000000000000000000000000000000fa',
      data: '0x01',
      signature: `0x${'11'.repeat(65)}`,
    })
    const nowSeconds = NOW_MS / 1000
    const verifyRange = async (from: number, to: number) => {
      for (let start = from; start < to; start += BATCH) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => {
            const payment = buildPayment(requirements, {
              signature,
              authorization: {
                from: payerAddress(start + k),
                to: MERCHANT,
                value: '10000',
                validAfter: String(nowSeconds - 60),
                validBefore: String(nowSeconds + 120),
                nonce: bytesToHex(new Uint8Array(32).fill((start + k) % 256)),
              },
            })
            return facilitator.verify(payment, requirements)
          }),
        )
        expect(answers.every((a) => a.invalidReason === REASONS.evmEip6492FactoryNotAllowed)).toBe(true)
      }
    }
    const cache = getCodeCache(chain.client)

    await verifyRange(0, 2 * CODE_CACHE_SIZE)
    const settled = heapAfterGc()
    expect(cache.size).toBe(CODE_CACHE_SIZE)

    await verifyRange(2 * CODE_CACHE_SIZE, PAYERS)
    const after = heapAfterGc()
    expect(cache.size).toBe(CODE_CACHE_SIZE)
    // Every payer was looked up once (no answer was served from a stale entry).
    expect(chain.stats.codeLookups).toBeGreaterThanOrEqual(PAYERS)
    // 80,000 more payers: an unbounded cache would keep about 10 MB more.
    expect(after - settled).toBeLessThan(4 * 1024 * 1024)
  }, 120_000)
})
