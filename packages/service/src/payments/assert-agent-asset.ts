import { AppError, type SchemeName } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainAsset } from '../rails/types.js'
import type { ChainName } from '../reference/chains.js'

/** Whether a scheme moves this asset: tokens only (eip3009 needs an EIP-712 domain, solana an SPL mint). */
function isSchemeAsset(scheme: SchemeName, asset: ChainAsset): boolean {
  if (asset.address === null) {
    return false
  }
  if (scheme === 'solana') {
    return asset.kind === 'spl'
  }
  return asset.kind === 'erc20' && (scheme === 'permit2' || asset.eip712 !== undefined)
}

/**
 * Refuses, before any check runs, an agent payment asset the scheme cannot move on that chain in the
 * key's environment, with 400 `unsupported_asset_chain` naming the asset and the ones it accepts
 * there (`details.supportedAssets`): a native coin (SOL, ETH: the schemes settle token transfers
 * only, docs/sessions.md "Agent payments") or a token the chain does not have in that environment
 * (USDT on Base mainnet, which Tether does not issue).
 */
export function assertAgentAsset(
  deps: Pick<Deps, 'rails'>,
  input: { environment: KeyEnvironment; scheme: SchemeName; chain: ChainName; asset: string },
): void {
  const entry = deps.rails.chains.get(input.environment, input.chain)
  if (!entry) {
    return
  }
  const found = deps.rails.chains.findAsset(input.environment, input.chain, input.asset)
  const supported = entry.assets.filter((asset) => isSchemeAsset(input.scheme, asset)).map((a) => a.symbol)
  if (found && found.address !== null) {
    return
  }
  const accepted = supported.length > 0 ? supported.join(', ') : 'none'
  const where = `${input.chain} (${entry.network})`
  const message = found
    ? `${found.symbol} is ${input.chain}'s native coin: the ${input.scheme} scheme of agent payments settles token transfers only, not native ${found.symbol} transfers; ${input.scheme} on ${input.chain} accepts ${accepted}`
    : `${input.asset} does not exist on ${where} for ${input.environment} keys; ${input.scheme} on ${input.chain} accepts ${accepted}`
  throw new AppError('unsupported_asset_chain', {
    message,
    context: {
      param: 'asset',
      details: {
        reason: found ? 'native_asset_not_supported' : 'asset_not_on_chain',
        chain: input.chain,
        network: entry.network,
        asset: input.asset,
        supportedAssets: supported,
      },
    },
  })
}
