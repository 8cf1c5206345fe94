import { AppError, type PaymentRequirements, type SupportedResponse } from '@tollgate/core'
import type { CompiledRoute } from './compile-routes.js'
import { findSupportedKind, type SupportedCache } from './supported-cache.js'

/**
 * Builds (and memoizes per `/supported` snapshot) the requirements a route offers. Routes without a
 * scheme that needs `/supported` never call the facilitator here. An option the facilitator cannot
 * serve (no Solana kind for its network) is left out and reported through `onError`.
 */
export function createRequirementsBuilder(options: {
  supported: SupportedCache
  onError: (error: unknown) => void
}): (route: CompiledRoute) => Promise<PaymentRequirements[]> {
  const memo = new WeakMap<CompiledRoute, { supported?: SupportedResponse; value: PaymentRequirements[] }>()
  return async (route) => {
    const needsSupported = route.accepts.some((accept) => accept.needsSupported)
    const supported = needsSupported ? await options.supported.get() : undefined
    const hit = memo.get(route)
    if (hit && hit.supported === supported) {
      return hit.value
    }
    const value = buildRequirements(route, supported, options.onError)
    memo.set(route, { ...(supported ? { supported } : {}), value })
    return value
  }
}

function buildRequirements(
  route: CompiledRoute,
  supported: SupportedResponse | undefined,
  onError: (error: unknown) => void,
): PaymentRequirements[] {
  const requirements: PaymentRequirements[] = []
  for (const accept of route.accepts) {
    const supportedKind = supported ? findSupportedKind(supported, accept.asset.network) : undefined
    if (accept.needsSupported && !supportedKind) {
      onError(
        new AppError('unsupported_scheme', {
          context: { scheme: accept.server.name, network: accept.asset.network },
          message: `the facilitator does not support ${accept.server.name} on ${accept.asset.network}`,
        }),
      )
      continue
    }
    requirements.push(
      accept.server.createRequirements({
        asset: accept.asset,
        amount: accept.amount,
        payTo: accept.payTo,
        ...(accept.maxTimeoutSeconds !== undefined ? { maxTimeoutSeconds: accept.maxTimeoutSeconds } : {}),
        ...(supportedKind ? { supportedKind } : {}),
        ...(accept.extra ? { extra: accept.extra } : {}),
      }),
    )
  }
  if (requirements.length === 0) {
    throw new AppError('facilitator_unreachable', {
      context: {},
      message: `the facilitator supports none of the payment options of route "${route.key}"`,
    })
  }
  return requirements
}
