import { type Asset, getNetworkFamily, type Network, SAFE_PROXY_FACTORY_ADDRESS } from '@tollgate/core'
import type { DevnetManifest } from '@tollgate/devnet'
import { createFacilitator, type Facilitator, type FacilitatorDeps } from '../create-facilitator.js'
import { createSchemesFromConfig } from '../create-schemes-from-config.js'
import type { NetworkSettings } from '../facilitator-config.js'

/** Every devnet token as an {@link Asset}: the allowlist of a facilitator serving the devnet. */
export function getDevnetAssets(manifest: DevnetManifest): Asset[] {
  return Object.values(manifest.networks).flatMap((network) =>
    Object.values(network.assets).map((asset) => ({ ...asset, network: network.network as Network })),
  )
}

/**
 * The facilitator configuration of a running devnet: every network with all its schemes, the
 * devnet's relayer keys as fee payers, its tokens as the allowlist, and anvil-speed polling.
 */
export function getDevnetNetworkSettings(manifest: DevnetManifest): NetworkSettings[] {
  const assets = getDevnetAssets(manifest)
  return Object.values(manifest.networks).map((network) => {
    const id = network.network as Network
    const family = getNetworkFamily(id) ?? 'evm'
    return {
      network: id,
      family,
      rpcUrl: network.rpcUrl,
      schemes: family === 'svm' ? ['solana'] : ['eip3009', 'permit2'],
      privateKeys: manifest.wallets
        .filter((w) => w.network === id && w.role === 'relayer')
        .map((w) => w.privateKey),
      assets: assets.filter((a) => a.network === id),
      pollingIntervalMs: 50,
    }
  })
}

/** Options of {@link createDevnetFacilitator}: the facilitator's deps other than its schemes. */
export type CreateDevnetFacilitatorOptions = Omit<FacilitatorDeps, 'schemes' | 'getBalances'>

/**
 * Tollgate's facilitator in process over a running devnet (the sandbox, examples and e2e tests
 * use it). It allowlists Safe's proxy factory for ERC-6492, so counterfactual Safes can pay. Pass a durable `store` to get exactly-once across restarts; the default is in memory.
 */
export async function createDevnetFacilitator(
  manifest: DevnetManifest,
  options: CreateDevnetFacilitatorOptions = {},
): Promise<{ facilitator: Facilitator; close(): void }> {
  const configured = await createSchemesFromConfig({
    networks: getDevnetNetworkSettings(manifest),
    // Counterfactual Safes (the devnet places Safe 1.4.1 at its canonical addresses) may pay.
    evm: { eip6492AllowedFactories: [SAFE_PROXY_FACTORY_ADDRESS] },
    solana: {},
  })
  const facilitator = createFacilitator({
    ...options,
    schemes: configured.schemes,
    getBalances: () => configured.getBalances(),
  })
  return {
    facilitator,
    close() {
      facilitator.close()
      configured.close()
    },
  }
}
