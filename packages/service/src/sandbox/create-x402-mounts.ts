import { createHash } from 'node:crypto'
import { getBase58Decoder } from '@solana/kit'
import { createAssetRegistry, SOLANA_DEVNET } from '@tollgate/core'
import {
  createFacilitatorApp,
  createFacilitatorListener,
  createPostgresSettlementStore,
  type Facilitator,
  resolveSettleLimits,
  startReconcileLoop,
} from '@tollgate/facilitator'
import {
  createDevnetFacilitator,
  getDevnetAssets,
  getDevnetNetworkSettings,
} from '@tollgate/facilitator/devnet'
import { type PaymentVariables, paymentRequired } from '@tollgate/middleware'
import { Hono } from 'hono'
import { getAddress, keccak256, toHex } from 'viem'
import { createSandboxSafes, type SandboxSmartAccount } from './create-sandbox-safes.js'
import type { SandboxContext, SandboxMount } from './start-sandbox.js'

/** Where the demo merchant is paid on EVM networks (a fixed address; the sandbox holds no key for it). */
export const DEMO_MERCHANT_EVM = getAddress(`0x${keccak256(toHex('tollgate:sandbox:merchant')).slice(-40)}`)
/** Where the demo merchant is paid on Solana (its token accounts are created at start). */
export const DEMO_MERCHANT_SOLANA = getBase58Decoder().decode(
  createHash('sha256').update('tollgate:sandbox:merchant').digest(),
)
/** The demo resource's price, in dollars. */
export const DEMO_PRICE = '$0.01'

/**
 * The sandbox's facilitator: settlements stored durably in the service's database and reconciled
 * every 15 s; also funds one counterfactual Safe per EVM network for the manifest's `smartAccounts`. It serves `/facilitator`, the demo resource and the merchant API's /x402 routes.
 */
export async function createSandboxFacilitator(
  context: Pick<SandboxContext, 'deps' | 'devnet'>,
): Promise<{ facilitator: Facilitator; stop: () => Promise<void>; smartAccounts: SandboxSmartAccount[] }> {
  const { devnet, deps } = context
  const store = await createPostgresSettlementStore({ db: deps.db })
  // The windows and the revert cool-down as in production; no fee floor, since the devnet's gas is
  // free and tests and examples pay a few atomic units.
  const limits = resolveSettleLimits(getDevnetNetworkSettings(devnet), { defaultMinAmount: 'none' })
  const { facilitator, close } = await createDevnetFacilitator(devnet, { store, logger: deps.logger, limits })
  const reconcile = startReconcileLoop(facilitator, { logger: deps.logger })
  if (devnet.networks[SOLANA_DEVNET]) {
    // The solana scheme never creates token accounts (rent drain), so the payee's must exist.
    await devnet.fund({ network: SOLANA_DEVNET, address: DEMO_MERCHANT_SOLANA, asset: 'USDC', amount: 0n })
  }
  // Counterfactual Safes that pay the demo resource (the facilitator allowlists Safe's proxy factory).
  const smartAccounts = await createSandboxSafes(devnet)
  return {
    facilitator,
    smartAccounts,
    stop: async () => {
      await reconcile.stop()
      close()
    },
  }
}

/**
 * The x402 mounts of the sandbox: the facilitator at `/facilitator` and a demo paid resource at
 * `/demo/paid` behind our middleware, payable with eip3009 (Base Sepolia USDC), permit2 (BSC
 * testnet USDT) and solana (devnet USDC), each where the devnet runs that network.
 */
export function createX402Mounts(context: SandboxContext): SandboxMount[] {
  const { facilitator } = context
  if (!facilitator) {
    return []
  }
  return [
    {
      path: '/facilitator',
      fetch: createFacilitatorApp(facilitator).fetch,
      listener: createFacilitatorListener(facilitator),
    },
    { path: '/demo', fetch: createDemoApp(context, facilitator).fetch },
  ]
}

function createDemoApp({ devnet, baseUrl }: SandboxContext, facilitator: Facilitator) {
  const offered = [
    { scheme: 'eip3009', network: 'eip155:84532', asset: 'USDC' },
    { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
    { scheme: 'solana', network: SOLANA_DEVNET, asset: 'USDC' },
  ] as const
  const accepts = offered.filter(
    (option) => devnet.networks[option.network]?.assets[option.asset] !== undefined,
  )
  const app = new Hono<{ Variables: PaymentVariables }>()
  app.use(
    '/paid',
    paymentRequired({
      facilitator,
      assets: createAssetRegistry(getDevnetAssets(devnet)),
      payTo: { evm: DEMO_MERCHANT_EVM, svm: DEMO_MERCHANT_SOLANA },
      routes: {
        price: DEMO_PRICE,
        accepts,
        description: 'Tollgate sandbox demo: a paid JSON resource',
        mimeType: 'application/json',
        // Mounted under /demo, the app sees /paid; the offer names the public URL.
        resource: { url: `${baseUrl}/demo/paid` },
      },
    }),
  )
  app.get('/paid', (c) => {
    const payment = c.get('payment')
    return c.json({
      message: 'Thanks for paying. Here is the paid resource.',
      payer: payment.payer,
      network: payment.network,
      scheme: payment.scheme,
    })
  })
  return app
}
