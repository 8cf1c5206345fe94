/** Token transfer methods a devnet asset supports (x402 `exact` flavours, named as Tollgate names them). */
export type TransferMethod = 'eip3009' | 'permit2' | 'solana'

/** One token deployed on a devnet chain. */
export type DevnetAsset = {
  symbol: string
  /** EVM contract address (checksummed) or SPL mint (base58). */
  address: string
  decimals: number
  /** EIP-712 domain of the token (EVM tokens with EIP-3009 / EIP-2612 only). */
  eip712?: { name: string; version: string }
  transferMethods: TransferMethod[]
  /** SPL token program that owns the mint (Solana only). */
  tokenProgram?: string
}

/** One running chain, keyed in the manifest by its CAIP-2 id. */
export type DevnetNetwork = {
  /** CAIP-2 id, e.g. `eip155:84532` or `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`. */
  network: string
  kind: 'evm' | 'svm'
  /** EVM chain id (EVM only). */
  chainId?: number
  rpcUrl: string
  assets: Record<string, DevnetAsset>
  /** Canonical Permit2, the x402 exact Permit2 proxy and Multicall3 (EVM only). */
  permit2?: string
  x402ExactPermit2Proxy?: string
  multicall3?: string
  /**
   * Set when the network runs as a fork (`--fork`): the upstream block it forked at and, per
   * canonical contract, whether the fork already had it (`found`) or the devnet put it there
   * (`placed`). The upstream RPC URL is not repeated here: it often carries an API key.
   */
  fork?: { blockNumber: number; contracts: { name: string; address: string; status: 'found' | 'placed' }[] }
}

/**
 * A funded key. `role: 'payer'` holds native gas and every token of its network (and, on EVM,
 * a Permit2 approval unless `permit2Approved` is false); `role: 'relayer'` holds only native gas
 * and is meant as a facilitator fee payer.
 * `privateKey` is 0x-hex (EVM) or the base58 64-byte secret key (Solana).
 */
export type DevnetWallet = {
  network: string
  role: 'payer' | 'relayer'
  address: string
  privateKey: string
  permit2Approved?: boolean
}

/** The JSON part of a running devnet: what `npm run devnet` prints and the sandbox manifest embeds. */
export type DevnetManifest = {
  networks: Record<string, DevnetNetwork>
  wallets: DevnetWallet[]
}

/** Parameters of {@link Devnet.fund}: `asset` is a symbol of the network's assets; omit it for the native coin. */
export type FundParameters = { network: string; address: string; asset?: string; amount: bigint }

/**
 * A running devnet (or one chain family of it).
 * `fund` mints tokens or sets native balance (atomic units) for any address: a test and sandbox helper;
 * on Solana it creates the owner's associated token account when missing.
 * `stop()` kills every child process and closes every server; calling it twice is harmless.
 */
export type Devnet = DevnetManifest & {
  fund(parameters: FundParameters): Promise<void>
  stop(): Promise<void>
}
