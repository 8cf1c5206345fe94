import { randomBytes } from 'node:crypto'
import type { FacilitatorClient, PaymentRequirements } from '@tollgate/core'
import { createApp, type createRails, createRateLimiter, type Database } from '@tollgate/service'
import type { Kysely } from 'kysely'
import { createBenchMerchant } from './bench-merchant.js'

type Networks = NonNullable<NonNullable<Parameters<typeof createRails>[1]>['networks']>

/**
 * The merchant API over `db` (called with `app.fetch`, no HTTP) for one new merchant, behind a stub
 * facilitator that settles every payment at once with a fresh transaction hash: what the merchant
 * path costs without the chain. `getSupported` comes from a real facilitator, so the requirements
 * name the devnet's assets. `post` sends an x402 route of the API with the merchant's key.
 */
export async function startStubX402Merchant(input: {
  db: Kysely<Database>
  networks: Networks
  facilitator: FacilitatorClient
  payer: string
}) {
  const { deps, key } = await createBenchMerchant({ db: input.db, networks: input.networks })
  const app = createStubFacilitatorApp(deps, {
    payer: input.payer,
    getSupported: () => input.facilitator.getSupported(),
  })
  const post = (path: 'requirements' | 'settle', body: string) =>
    app.fetch(
      new Request(`http://bench/api/v1/x402/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body,
      }),
    )
  return {
    post,
    /** The v2 requirements of a 0.01 USDC payment on Base to this merchant. */
    requirements: async (): Promise<PaymentRequirements> => {
      const res = await post(
        'requirements',
        JSON.stringify({ chain: 'base', asset: 'USDC', amount: '0.01', x402Version: 2 }),
      )
      const accepted = ((await res.json()) as { data?: { accepts?: PaymentRequirements[] } }).data
        ?.accepts?.[0]
      if (res.status !== 201 || !accepted) {
        throw new Error(`requirements answered ${res.status}`)
      }
      return accepted
    },
  }
}

/**
 * The merchant API over `deps` behind a stub facilitator that settles every payment at once with a
 * fresh transaction hash paid by `payer`, with no rate limit in the way of a benchmark. Its
 * `rails.incoming.readTransaction` answers the transfer the stub settled, so the on-chain check of
 * the settle passes without a chain.
 */
export function createStubFacilitatorApp(
  deps: Parameters<typeof createApp>[0],
  stub: { payer: string; getSupported: FacilitatorClient['getSupported'] },
) {
  // The settle's on-chain check reads the transfer the stub "settled" from this map instead of a
  // chain (the benchmark measures the merchant path without one).
  const settled = new Map<string, { to: string; amount: bigint }>()
  const facilitator: FacilitatorClient = {
    verify: async () => ({ isValid: true }),
    settle: async (request) => {
      const transaction = `0x${randomBytes(32).toString('hex')}`
      const { payTo, amount } = request.paymentRequirements as { payTo: string; amount?: string }
      const atomic =
        amount ?? (request.paymentRequirements as { maxAmountRequired?: string }).maxAmountRequired
      settled.set(transaction, { to: payTo, amount: BigInt(atomic ?? '0') })
      return { success: true, transaction, network: request.paymentRequirements.network, payer: stub.payer }
    },
    getSupported: stub.getSupported,
  }
  const incoming = deps.rails.incoming
  const rails = {
    ...deps.rails,
    incoming: {
      ...incoming,
      readTransaction: async (input: Parameters<typeof incoming.readTransaction>[0]) => {
        const transfer = settled.get(input.txHash)
        settled.delete(input.txHash)
        return transfer
          ? [
              {
                ...transfer,
                asset: 'USDC',
                decimals: 6,
                txHash: input.txHash,
                logIndex: 0,
                fromAddress: stub.payer,
                blockNumber: 1n,
                blockHash: null,
                confirmations: 1,
              },
            ]
          : []
      },
    },
  }
  return createApp(
    { ...deps, rails },
    {
      facilitator,
      rateLimiter: createRateLimiter({ limit: 1_000_000, windowMs: 60_000 }),
    },
  )
}
