import {
  type Asset,
  createAssetRegistry,
  type FacilitatorRequest,
  type PaymentRequirements,
} from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet, toViemChain } from '@tollgate/devnet'
import {
  createEip3009Client,
  createEip3009Server,
  createPermit2Client,
  createPermit2Server,
} from '@tollgate/evm'
import { type Address, createPublicClient, createTestClient, type Hex, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export const BASE = 'eip155:84532'

/**
 * A Base Sepolia devnet for the facilitator's settlement e2e tests: a public client (50 ms
 * polling), anvil's test client, the devnet's assets, its payer and relayer keys, and signed
 * eip3009 / permit2 requests of 0.01 USDC from the first payer.
 */
export async function startBaseSepoliaFixture() {
  const devnet: LocalDevnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  const network = devnet.networks[BASE]
  if (!network) {
    throw new Error('no Base Sepolia devnet')
  }
  const chain = toViemChain(network)
  const client: PublicClient = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
  const anvil = createTestClient({ chain, mode: 'anvil', transport: http() })
  const assets = createAssetRegistry(
    Object.values(network.assets).map((a) => ({ ...a, network: BASE }) as Asset),
  )
  const keys = (role: 'payer' | 'relayer') =>
    devnet.wallets
      .filter((w) => w.network === BASE && w.role === role)
      .map((w) => privateKeyToAccount(w.privateKey as Hex))

  async function buildRequest(
    scheme: 'eip3009' | 'permit2',
    payTo: Address,
    options: { maxTimeoutSeconds?: number; now?: () => number } = {},
  ): Promise<FacilitatorRequest> {
    const account = keys('payer')[0]
    if (!account) {
      throw new Error('no payer')
    }
    const server = scheme === 'eip3009' ? createEip3009Server() : createPermit2Server()
    const requirements: PaymentRequirements = server.createRequirements({
      asset: assets.get(BASE, 'USDC'),
      amount: 10_000n,
      payTo,
      maxTimeoutSeconds: options.maxTimeoutSeconds ?? 300,
    })
    const clock = options.now ? { now: options.now } : {}
    const payer =
      scheme === 'eip3009'
        ? createEip3009Client({ account, ...clock })
        : createPermit2Client({ account, ...clock })
    return {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: requirements,
        payload: await payer.createPayload(requirements),
      },
      paymentRequirements: requirements,
    }
  }

  return { devnet, client, anvil, assets, keys, buildRequest, stop: () => devnet.stop() }
}
