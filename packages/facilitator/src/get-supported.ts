import {
  getNetworkFamily,
  type SchemeFacilitator,
  type SupportedKind,
  type SupportedResponse,
  toV1NetworkName,
} from '@tollgate/core'

/**
 * The `GET /supported` answer for a set of schemes: one x402 `exact` kind per network and
 * x402Version (2 with the CAIP-2 id, 1 with the v1 name where one exists), as the reference lists
 * them. `eip3009` and `permit2` on one network share that kind; their `extra`s are merged.
 * `signers` groups every signer address by namespace pattern (`eip155:*`, `solana:*`).
 */
export function getSupported(schemes: readonly SchemeFacilitator[]): SupportedResponse {
  const kinds = new Map<string, SupportedKind>()
  const signers = new Map<string, Set<string>>()
  for (const scheme of schemes) {
    for (const network of scheme.networks) {
      const extra = scheme.getSupportedExtra(network)
      addKind(kinds, { x402Version: 2, scheme: 'exact', network }, extra)
      const v1Name = toV1NetworkName(network)
      if (v1Name) {
        addKind(kinds, { x402Version: 1, scheme: 'exact', network: v1Name }, extra)
      }
      const pattern = getSignerPattern(network)
      const set = signers.get(pattern) ?? new Set<string>()
      for (const signer of scheme.getSigners(network)) {
        set.add(signer)
      }
      signers.set(pattern, set)
    }
  }
  // v2 kinds first, then v1, each in registration order (stable output for caches and diffs).
  const ordered = [...kinds.values()].sort((a, b) => b.x402Version - a.x402Version)
  return {
    kinds: ordered,
    extensions: [],
    signers: Object.fromEntries([...signers].map(([pattern, set]) => [pattern, [...set]])),
  }
}

function addKind(
  kinds: Map<string, SupportedKind>,
  kind: SupportedKind,
  extra: Record<string, unknown> | undefined,
): void {
  const id = `${kind.x402Version}|${kind.scheme}|${kind.network}`
  const existing = kinds.get(id)
  const merged = { ...existing?.extra, ...extra }
  kinds.set(id, Object.keys(merged).length > 0 ? { ...kind, extra: merged } : kind)
}

// The reference keys signers by CAIP family pattern; unknown families keep their own namespace.
function getSignerPattern(network: string): string {
  const family = getNetworkFamily(network)
  if (family === 'evm') {
    return 'eip155:*'
  }
  if (family === 'svm') {
    return 'solana:*'
  }
  return `${network.split(':')[0]}:*`
}
