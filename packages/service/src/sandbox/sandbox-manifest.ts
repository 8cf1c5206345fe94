import type { DevnetManifest } from '@tollgate/devnet'
import { chainTable } from '../reference/chains.js'
import type { SandboxSmartAccount } from './create-sandbox-safes.js'

/** One asset of a manifest network (docs/service.md, 'Sandbox manifest'). */
export type SandboxAsset = {
  address: string
  decimals: number
  eip712?: { name: string; version: string }
  transferMethods: string[]
  tokenProgram?: string
}

/** `.tollgate/sandbox.json`: what tools, examples and tests read to reach a running sandbox. */
export type SandboxManifest = {
  apiUrl: string
  apiKey: string
  facilitatorUrl: string
  demoResourceUrl: string
  checkoutUrl: string
  networks: Record<string, { rpcUrl: string; assets: Record<string, SandboxAsset> }>
  /** Spec chain name → CAIP-2 id of the devnet network that runs it (`base: "eip155:84532"`). */
  chains: Record<string, string>
  wallets: { network: string; address: string; privateKey: string }[]
  /** Funded counterfactual smart accounts, one per EVM network: pay with the owner key (docs/smart-accounts.md). */
  smartAccounts: SandboxSmartAccount[]
  /** How to receive the sandbox's webhook events locally (docs/webhooks.md "Local development"). */
  webhooks: { listenCommand: string; eventsUrl: string }
}

/** The command that forwards the sandbox's events to a local URL, as the banner and manifest show it. */
export const listenCommand = 'npm run tollgate -- listen --forward-to http://localhost:3000/webhooks'

/** Builds the manifest from the base URL (`http://127.0.0.1:4020`), the sandbox key and the devnet. */
export function createSandboxManifest(input: {
  baseUrl: string
  apiKey: string
  devnet: DevnetManifest
  smartAccounts?: SandboxSmartAccount[]
}): SandboxManifest {
  const networks: SandboxManifest['networks'] = {}
  for (const [id, network] of Object.entries(input.devnet.networks)) {
    const assets: Record<string, SandboxAsset> = {}
    for (const [symbol, asset] of Object.entries(network.assets)) {
      assets[symbol] = {
        address: asset.address,
        decimals: asset.decimals,
        ...(asset.eip712 ? { eip712: asset.eip712 } : {}),
        transferMethods: asset.transferMethods,
        ...(asset.tokenProgram ? { tokenProgram: asset.tokenProgram } : {}),
      }
    }
    networks[id] = { rpcUrl: network.rpcUrl, assets }
  }
  return {
    apiUrl: `${input.baseUrl}/api/v1`,
    apiKey: input.apiKey,
    // Served by the sandbox's mounts (create-x402-mounts.ts); see docs/service.md, 'Sandbox manifest'.
    facilitatorUrl: `${input.baseUrl}/facilitator`,
    demoResourceUrl: `${input.baseUrl}/demo/paid`,
    // Opens the hosted checkout of a new sample session (docs/checkout.md "Sandbox").
    checkoutUrl: `${input.baseUrl}/checkout/sample`,
    networks,
    chains: Object.fromEntries(
      chainTable
        .filter((info) => info.networkId in input.devnet.networks)
        .map((info) => [info.chain, info.networkId]),
    ),
    wallets: input.devnet.wallets
      .filter((wallet) => wallet.role === 'payer')
      .map((wallet) => ({ network: wallet.network, address: wallet.address, privateKey: wallet.privateKey })),
    smartAccounts: input.smartAccounts ?? [],
    webhooks: { listenCommand, eventsUrl: `${input.baseUrl}/api/v1/events` },
  }
}
