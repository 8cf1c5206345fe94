import type { PaymentRequirements } from '@tollgate/core'
import { createEip3009Client } from '@tollgate/evm'
import type { PrivateKeyAccount } from 'viem/accounts'

/**
 * `count` facilitator request bodies (v2 JSON), each a freshly signed EIP-3009 payment for
 * `requirements`, from `payers` in turn: payloads no server has seen, so no cache can answer them.
 */
export function signEip3009Bodies(
  payers: readonly PrivateKeyAccount[],
  requirements: PaymentRequirements,
  count: number,
): Promise<string[]> {
  const clients = payers.map((account) => createEip3009Client({ account }))
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const client = clients[i % clients.length] as (typeof clients)[number]
      const payload = await client.createPayload(requirements)
      const paymentPayload = {
        x402Version: 2,
        resource: { url: 'https://bench.example/' },
        accepted: requirements,
        payload,
      }
      return JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements })
    }),
  )
}
