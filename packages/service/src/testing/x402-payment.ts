import type { PaymentRequirements } from '@tollgate/core'
import { createEip3009Client } from '@tollgate/evm'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Harness } from './harness.js'

/** The body of POST /x402/verify and /x402/settle as an x402 v2 client sends it. */
export type X402SettleBody = {
  x402Version: 2
  paymentPayload: {
    x402Version: 2
    accepted: PaymentRequirements
    payload: { authorization: { nonce: string } }
  }
  paymentRequirements: PaymentRequirements
}

/**
 * A never-used EIP-3009 payment of `amount` USDC on Base Sepolia, signed by `payerKey` against the
 * v2 requirements POST /x402/requirements gives the merchant of `key` (the harness's default key
 * when omitted): what an x402 client sends a merchant's resource, ready to settle.
 */
export async function signX402Payment(
  h: Harness,
  payerKey: Hex,
  options: { key?: string; amount?: string } = {},
): Promise<X402SettleBody> {
  const res = await h.request('/api/v1/x402/requirements', {
    method: 'POST',
    json: { chain: 'base', asset: 'USDC', amount: options.amount ?? '0.01', x402Version: 2 },
    ...(options.key ? { key: options.key } : {}),
  })
  if (res.status !== 201) {
    throw new Error(`POST /x402/requirements answered ${res.status}: ${await res.text()}`)
  }
  const requirements = ((await res.json()) as { data: { accepts: PaymentRequirements[] } }).data
    .accepts[0] as PaymentRequirements
  const payload = await createEip3009Client({ account: privateKeyToAccount(payerKey) }).createPayload(
    requirements,
  )
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload } as X402SettleBody['paymentPayload'],
    paymentRequirements: requirements,
  }
}
