// Shared setup of the svm e2e tests: the Solana half of the devnet, our facilitator on it, and helpers.
import {
  type Address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
  type KeyPairSigner,
} from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import {
  type Asset,
  createAssetRegistry,
  type PaymentPayload,
  type PaymentRequirements,
  SOLANA_DEVNET,
} from '@tollgate/core'
import { type Devnet, startDevnet } from '@tollgate/devnet'
import {
  createSolanaClient,
  createSolanaFacilitator,
  createSolanaRpcClient,
  createSolanaServer,
  type SolanaFacilitator,
  type SolanaFacilitatorOptions,
} from '../src/index.js'

export type SvmHarness = {
  devnet: Devnet
  rpcUrl: string
  rpc: ReturnType<typeof createSolanaRpc>
  payers: KeyPairSigner[]
  /** The devnet's funded payer number `index`. */
  payer(index: number): KeyPairSigner
  feePayers: KeyPairSigner[]
  assets: Record<'USDC' | 'USDC2022', Asset>
  facilitator: SolanaFacilitator
  createFacilitator(overrides?: Partial<SolanaFacilitatorOptions>): SolanaFacilitator
  /** A fresh merchant wallet with (empty) token accounts for both tokens. */
  createMerchant(): Promise<Address>
  requirementsFor(parameters: {
    asset?: 'USDC' | 'USDC2022'
    amount: bigint
    payTo: Address
    memo?: string
  }): PaymentRequirements
  /** Pays `requirements` with our client as `payer`. */
  pay(payer: KeyPairSigner, requirements: PaymentRequirements): Promise<PaymentPayload>
  tokenBalance(owner: Address, asset: 'USDC' | 'USDC2022'): Promise<bigint>
  /** Produces `count` empty blocks (devnet admin RPC), ageing every blockhash by as much. */
  advanceBlocks(count: number): Promise<void>
  stop(): Promise<void>
}

export async function startSvmHarness(): Promise<SvmHarness> {
  const devnet = await startDevnet({ evm: false, solana: { payers: 3, relayers: 2 } })
  const network = devnet.networks[SOLANA_DEVNET]
  if (!network) {
    throw new Error('devnet has no Solana network')
  }
  const rpcUrl = network.rpcUrl
  const rpc = createSolanaRpc(rpcUrl)
  const keysOf = (role: 'payer' | 'relayer') =>
    Promise.all(
      devnet.wallets
        .filter((w) => w.network === SOLANA_DEVNET && w.role === role)
        .map((w) => createKeyPairSignerFromBytes(getBase58Encoder().encode(w.privateKey))),
    )
  const [payers, feePayers] = await Promise.all([keysOf('payer'), keysOf('relayer')])
  const toAsset = (symbol: 'USDC' | 'USDC2022'): Asset => {
    const a = network.assets[symbol]
    if (!a) {
      throw new Error(`devnet has no ${symbol}`)
    }
    return { ...a, network: SOLANA_DEVNET, transferMethods: ['solana'] }
  }
  const assets = { USDC: toAsset('USDC'), USDC2022: toAsset('USDC2022') }
  const registry = createAssetRegistry(Object.values(assets))
  const createFacilitator = (overrides: Partial<SolanaFacilitatorOptions> = {}) =>
    createSolanaFacilitator({
      // Our batching RPC client on the facilitator side; the payers use kit's stock one.
      networks: { [SOLANA_DEVNET]: { rpc: createSolanaRpcClient(rpcUrl), feePayers } },
      assets: registry,
      confirmPollIntervalMs: 50,
      ...overrides,
    })
  const facilitator = createFacilitator()
  const server = createSolanaServer()
  const tokenAccount = async (owner: Address, asset: 'USDC' | 'USDC2022') =>
    (
      await findAssociatedTokenPda({
        owner,
        mint: assets[asset].address as Address,
        tokenProgram: assets[asset].tokenProgram as Address,
      })
    )[0]

  return {
    devnet,
    rpcUrl,
    rpc,
    payers,
    payer: (index) => {
      const payer = payers[index]
      if (!payer) {
        throw new Error(`devnet has no payer ${index}`)
      }
      return payer
    },
    feePayers,
    assets,
    facilitator,
    createFacilitator,
    createMerchant: async () => {
      const merchant = (await generateKeyPairSigner()).address
      for (const asset of ['USDC', 'USDC2022'] as const) {
        await devnet.fund({ network: SOLANA_DEVNET, address: merchant, asset, amount: 0n })
      }
      return merchant
    },
    requirementsFor: ({ asset = 'USDC', amount, payTo, memo }) =>
      server.createRequirements({
        asset: assets[asset],
        amount,
        payTo,
        maxTimeoutSeconds: 60,
        supportedKind: {
          x402Version: 2,
          scheme: 'exact',
          network: SOLANA_DEVNET,
          extra: facilitator.getSupportedExtra(SOLANA_DEVNET) ?? {},
        },
        ...(memo ? { extra: { memo } } : {}),
      }),
    pay: async (payer, requirements) => {
      const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
      return {
        x402Version: 2,
        resource: { url: 'http://merchant.test/paid' },
        accepted: requirements,
        payload: await client.createPayload(requirements),
      }
    },
    tokenBalance: async (owner, asset) => {
      const { value } = await rpc.getTokenAccountBalance(await tokenAccount(owner, asset)).send()
      return BigInt(value.amount)
    },
    advanceBlocks: async (count) => {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tollgate_advanceBlocks', params: [count] }),
      })
      if (!response.ok) {
        throw new Error(`tollgate_advanceBlocks: HTTP ${response.status}`)
      }
    },
    stop: () => devnet.stop(),
  }
}

/** A settle context that records what the scheme reports, like the facilitator's store would. */
export function createRecordingContext(previousTransaction?: string) {
  const recorded: string[] = []
  return {
    recorded,
    context: {
      ...(previousTransaction ? { previousTransaction } : {}),
      recordBroadcast: async (transaction: string) => {
        recorded.push(transaction)
      },
    },
  }
}
