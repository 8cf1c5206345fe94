import { createKeyPairSignerFromBytes, getBase58Encoder, type KeyPairSigner } from '@solana/kit'
import { createAssetRegistry, getEvmChainId, type SchemeFacilitator } from '@tollgate/core'
import {
  createEip3009Facilitator,
  createEvmHttpTransport,
  createPermit2Facilitator,
  createRelayer,
  type Relayer,
} from '@tollgate/evm'
import { createSolanaFacilitator, createSolanaRpcClient, type SolanaFacilitator } from '@tollgate/svm'
import { createPublicClient, defineChain, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { FacilitatorConfig, NetworkSettings } from './facilitator-config.js'
import type { SignerBalance } from './facilitator-metrics.js'
import { isLoopbackUrl } from './is-loopback-url.js'

/** The schemes a configuration describes, their fee-payer balances, and how to stop their timers. */
export type ConfiguredSchemes = {
  schemes: SchemeFacilitator[]
  getBalances(): Promise<SignerBalance[]>
  close(): void
}

/**
 * Builds the scheme facilitators of a validated configuration: per EVM network a viem client (on
 * @tollgate/evm's undici transport) and a relayer over its keys, shared by `eip3009` and `permit2`;
 * one Solana facilitator over every Solana network's fee payers. Each network's assets are the allowlist. Opens no connection by itself.
 */
export async function createSchemesFromConfig(
  config: Pick<FacilitatorConfig, 'networks' | 'evm' | 'solana'>,
): Promise<ConfiguredSchemes> {
  const { networks } = config
  const evm = networks.filter((n) => n.family === 'evm')
  const svm = networks.filter((n) => n.family === 'svm')
  const assets = createAssetRegistry(networks.flatMap((n) => n.assets))
  const relayers = new Map<NetworkSettings, Relayer>(evm.map((n) => [n, createEvmRelayer(n)]))
  const schemes: SchemeFacilitator[] = []
  for (const name of ['eip3009', 'permit2'] as const) {
    const serving = evm.filter((n) => n.schemes.includes(name))
    if (serving.length === 0) {
      continue
    }
    const options = {
      networks: Object.fromEntries(
        serving.map((n) => [
          n.network,
          {
            client: getClient(n),
            relayer: relayers.get(n) as Relayer,
            ...(isLoopbackUrl(n.rpcUrl) ? { maxEthCallsInFlight: 1 } : {}),
          },
        ]),
      ),
      assets,
      ...(config.evm.receiptTimeoutMs ? { receiptTimeoutMs: config.evm.receiptTimeoutMs } : {}),
      ...(config.evm.eip6492AllowedFactories
        ? { eip6492AllowedFactories: config.evm.eip6492AllowedFactories as Hex[] }
        : {}),
    }
    schemes.push(name === 'eip3009' ? createEip3009Facilitator(options) : createPermit2Facilitator(options))
  }
  const solana = svm.length > 0 ? await createSolanaScheme(svm, assets, config.solana) : undefined
  if (solana) {
    schemes.push(solana)
  }
  return {
    schemes,
    async getBalances() {
      const evmBalances = await Promise.all(
        evm.map(async (n) =>
          ((await relayers.get(n)?.getBalances()) ?? []).map((b) => ({
            network: n.network,
            address: b.address,
            symbol: n.nativeSymbol ?? 'ETH',
            balance: b.balance,
            decimals: 18,
          })),
        ),
      )
      const svmBalances = ((await solana?.getFeePayerBalances()) ?? []).map((b) => ({
        network: b.network,
        address: b.address,
        symbol: svm.find((n) => n.network === b.network)?.nativeSymbol ?? 'SOL',
        balance: b.lamports,
        decimals: 9,
      }))
      return [...evmBalances.flat(), ...svmBalances]
    },
    close() {
      for (const relayer of relayers.values()) {
        relayer.close()
      }
    },
  }
}

const clients = new WeakMap<NetworkSettings, ReturnType<typeof createPublicClient>>()

function getClient(settings: NetworkSettings) {
  const cached = clients.get(settings)
  if (cached) {
    return cached
  }
  const chain = defineChain({
    id: getEvmChainId(settings.network),
    name: settings.network,
    nativeCurrency: {
      name: settings.nativeSymbol ?? 'ETH',
      symbol: settings.nativeSymbol ?? 'ETH',
      decimals: 18,
    },
    rpcUrls: { default: { http: [settings.rpcUrl] } },
  })
  const client = createPublicClient({
    chain,
    // undici keep-alive with same-turn JSON-RPC batching: fetch's per-call objects cost CPU per verify.
    transport: createEvmHttpTransport(settings.rpcUrl),
    ...(settings.pollingIntervalMs ? { pollingInterval: settings.pollingIntervalMs } : {}),
  })
  clients.set(settings, client)
  return client
}

function createEvmRelayer(settings: NetworkSettings): Relayer {
  return createRelayer({
    network: settings.network,
    client: getClient(settings),
    accounts: settings.privateKeys.map((key) => privateKeyToAccount(key as Hex)),
    ...(settings.gasLimitCap === undefined ? {} : { gasLimitCap: settings.gasLimitCap }),
    ...(settings.maxFeePerGasCap === undefined ? {} : { maxFeePerGasCap: settings.maxFeePerGasCap }),
    ...(settings.pollingIntervalMs ? { pollingIntervalMs: settings.pollingIntervalMs } : {}),
  })
}

async function createSolanaScheme(
  networks: readonly NetworkSettings[],
  assets: ReturnType<typeof createAssetRegistry>,
  options: FacilitatorConfig['solana'],
): Promise<SolanaFacilitator> {
  const entries = await Promise.all(
    networks.map(async (n) => [
      n.network,
      // Our batching keep-alive client: concurrent verifies' simulations share HTTP requests.
      {
        rpc: createSolanaRpcClient(n.rpcUrl),
        feePayers: await Promise.all(n.privateKeys.map(toKeyPairSigner)),
      },
    ]),
  )
  return createSolanaFacilitator({
    networks: Object.fromEntries(entries),
    assets,
    ...(options.limits ? { limits: withoutUndefined(options.limits) } : {}),
    ...(options.confirmTimeoutMs ? { confirmTimeoutMs: options.confirmTimeoutMs } : {}),
  })
}

/** Decodes a Solana secret key: base58 (64 bytes) or solana-keygen's JSON byte array. */
function toKeyPairSigner(key: string): Promise<KeyPairSigner> {
  const bytes = key.startsWith('[')
    ? Uint8Array.from(JSON.parse(key) as number[])
    : new Uint8Array(getBase58Encoder().encode(key))
  return createKeyPairSignerFromBytes(bytes)
}

function withoutUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }
}
