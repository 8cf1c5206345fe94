import { type FacilitatorClient, toCaip2Network } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'

/**
 * GET /x402/supported: the facilitator's kinds on the environment's chains, each with its chain name
 * and the token symbols x402 can settle there (tokens only: the exact schemes move tokens).
 */
export async function getX402Supported(
  deps: Pick<Deps, 'rails'>,
  facilitator: FacilitatorClient,
  input: { environment: KeyEnvironment },
) {
  const supported = await facilitator.getSupported()
  const kinds = supported.kinds.flatMap((kind) => {
    const entry = deps.rails.chains.getByNetwork(input.environment, toCaip2Network(kind.network))
    if (!entry) {
      return []
    }
    const assets = entry.assets.filter((a) => a.address !== null).map((a) => a.symbol)
    return [
      {
        x402Version: kind.x402Version,
        scheme: kind.scheme,
        network: kind.network,
        chain: entry.chain,
        assets,
        extra: kind.extra ?? {},
      },
    ]
  })
  return { kinds }
}
