// The merchant-API side of the x402 settle benchmarks (x402-merchant.ts, x402-merchant-trace.ts): a
// merchant with a test key on the service's database, the merchant API over the in-process
// facilitator (with settle's onSettled hook) and over a client that ignores settle's options (as an
// HTTP client does: the credit's statement runs after settle returns, the flow before the hook), the
// requirements they settle against, and the three sides to alternate between.

import type { FacilitatorClient, PaymentRequirements } from '@tollgate/core'
import type { Facilitator } from '@tollgate/facilitator'
import { createApp, type createRails, createRateLimiter } from '@tollgate/service'
import { createBenchMerchant } from './bench-merchant.js'

/** A server on a free port (each benchmark decides how requests reach the handler). */
export type Listen = (
  fetchHandler: (request: Request) => Response | Promise<Response>,
) => Promise<{ url: string; close: () => Promise<void> }>

/** Starts the merchant API twice (hook, no hook) beside the bare facilitator already served at `bareUrl`. */
export async function startMerchantServers(input: {
  db: Parameters<typeof createRails>[0]['db']
  networks: NonNullable<NonNullable<Parameters<typeof createRails>[1]>['networks']>
  facilitator: Facilitator
  bareUrl: string
  listen: Listen
}) {
  const { deps, key } = await createBenchMerchant({ db: input.db, networks: input.networks })
  const { facilitator } = input
  const rateLimiter = () => createRateLimiter({ limit: 1_000_000, windowMs: 60_000 })
  const service = await input.listen(createApp(deps, { facilitator, rateLimiter: rateLimiter() }).fetch)
  const noHook: FacilitatorClient = {
    verify: (request) => facilitator.verify(request),
    settle: (request) => facilitator.settle(request),
    getSupported: () => facilitator.getSupported(),
  }
  const serviceNoHook = await input.listen(
    createApp(deps, { facilitator: noHook, rateLimiter: rateLimiter() }).fetch,
  )
  const requirements = await getRequirements(service.url, key)
  const sides = [
    { name: 'facilitator', url: `${input.bareUrl}/settle`, headers: {} },
    { name: 'merchant-api', url: `${service.url}/api/v1/x402/settle`, headers: { 'x-api-key': key } },
    {
      name: 'merchant-api-no-hook',
      url: `${serviceNoHook.url}/api/v1/x402/settle`,
      headers: { 'x-api-key': key },
    },
  ] as const
  return {
    deps,
    key,
    requirements,
    sides,
    close: async () => {
      await service.close()
      await serviceNoHook.close()
    },
  }
}

async function getRequirements(serviceUrl: string, key: string): Promise<PaymentRequirements> {
  const res = await fetch(`${serviceUrl}/api/v1/x402/requirements`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ chain: 'base', asset: 'USDC', amount: '0.01', x402Version: 2 }),
  })
  const data = ((await res.json()) as { data: { accepts: PaymentRequirements[] } }).data
  const first = data.accepts[0]
  if (!first) {
    throw new Error('no requirements')
  }
  return first
}
