// An agent that pays for APIs with @tollgate/agent's wrapFetch, under a spend policy.
//
//   node --conditions=tollgate-source --import tsx examples/paywalled-api.ts     # first, in another terminal
//   node --conditions=tollgate-source --import tsx examples/paying-agent.ts
//
// It reads the API's URL, the devnet RPCs and funded payer keys from .tollgate/paywalled-api.json
// (EXAMPLE_MANIFEST to change it), then pays GET /weather (EVM key: the cheapest option it can pay,
// eip3009), GET /report (permit2 on BSC testnet, 18-decimal USDT) and GET /weather again with a
// policy that only allows Solana. Prints each body and its receipt; exits 1 if any payment failed.
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getPaymentReceipt, getPaymentRecord, type SpendPolicy, wrapFetch } from '@tollgate/agent'
import { type Asset, createAssetRegistry, SOLANA_DEVNET } from '@tollgate/core'

type Manifest = {
  url: string
  rpcs: Record<string, string>
  assets: Asset[]
  payers: { network: string; privateKey: string }[]
}

const here = dirname(fileURLToPath(import.meta.url))
const manifestPath = process.env.EXAMPLE_MANIFEST ?? join(here, '..', '.tollgate', 'paywalled-api.json')
const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest
const keyOf = (network: string) => manifest.payers.find((p) => p.network === network)?.privateKey ?? ''

const wallets = {
  evm: keyOf('eip155:84532') as `0x${string}`,
  solana: keyOf(SOLANA_DEVNET),
  rpcs: manifest.rpcs,
}
const policy: SpendPolicy = {
  maxPerPayment: '$0.10',
  maxPerDay: '$1',
  allowedHosts: [new URL(manifest.url).host],
}
const assets = createAssetRegistry(manifest.assets)
const onPayment = (record: { usd: string; scheme: string; requirements: { network: string } }) =>
  console.error(`paying $${record.usd} with ${record.scheme} on ${record.requirements.network}`)

const agent = wrapFetch(fetch, { wallets, policy, assets, onPayment })
const solanaOnly = wrapFetch(fetch, {
  wallets,
  policy: { ...policy, allowedNetworks: [SOLANA_DEVNET] },
  assets,
  onPayment,
})

let failed = false
for (const [label, pay, path] of [
  ['weather (cheapest option)', agent, '/weather'],
  ['report (permit2)', agent, '/report'],
  ['weather (Solana only)', solanaOnly, '/weather'],
] as const) {
  const response = await pay(new URL(path, manifest.url))
  const receipt = getPaymentReceipt(response)
  console.log(`${label}: HTTP ${response.status} ${await response.text()}`)
  console.log(`  receipt: ${JSON.stringify(receipt)} (paid $${getPaymentRecord(response)?.usd ?? '0'})`)
  failed ||= response.status !== 200 || receipt?.success !== true
}
process.exitCode = failed ? 1 : 0
