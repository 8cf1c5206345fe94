import type { KeyPairSigner } from '@solana/kit'
import type {
  Asset,
  AssetRegistry,
  PaymentRequirements,
  SchemeClient,
  SchemeName,
  SettleResponse,
} from '@tollgate/core'
import type { Hex, LocalAccount } from 'viem'
import type { SmartAccount } from 'viem/account-abstraction'
import type { SpendLedger } from './spend-ledger.js'

/**
 * The agent's keys. `evm`: a 0x private key or a viem LocalAccount (pays eip3009 and permit2 on
 * every EVM network), or smart accounts (permissionless `toSafeSmartAccount`, `createSafeAccount`):
 * each pays on the network of its client's chain, with ERC-1271 signatures once deployed and
 * ERC-6492-wrapped ones before (the facilitator deploys it). `solana`: a base58 64-byte secret key or a kit KeyPairSigner. `rpcs`: RPC URL
 * per CAIP-2 network; Solana payments need one per network (blockhash, mint), EVM uses them only
 * for balance checks and the Permit2 approval.
 */
export type Wallets = {
  evm?: Hex | LocalAccount | SmartAccount | readonly SmartAccount[]
  solana?: string | KeyPairSigner
  rpcs?: Record<string, string>
}

/**
 * What the agent may pay. Dollar amounts are strings or numbers (`'$0.10'`, `0.1`) and compare
 * against the price valued 1:1 in USD (assets are stablecoins; unknown assets are refused).
 */
export type SpendPolicy = {
  /** Largest single payment (default `'$1'`, as the reference client). */
  maxPerPayment?: string | number
  /** Cap on what is signed in any rolling 24 hours. */
  maxPerDay?: string | number
  /** Hosts that may be paid: `api.example.com`, `*.example.com`, `localhost:4020` (with a port). */
  allowedHosts?: readonly string[]
  /** CAIP-2 networks (or v1 names, or `eip155:*`) that may be used. */
  allowedNetworks?: readonly string[]
  /** Asset symbols or addresses that may be spent. */
  allowedAssets?: readonly string[]
  /** Payee addresses that may be paid. */
  allowedPayees?: readonly string[]
  /** Asked last, with the chosen option; `false` refuses. */
  approve?: (quote: PaymentQuote) => boolean | Promise<boolean>
}

/** The option the agent is about to pay. */
export type PaymentQuote = {
  url: string
  method: string
  x402Version: 1 | 2
  scheme: SchemeName
  requirements: PaymentRequirements
  asset: Asset
  /** Price in dollars, as a decimal string (`"0.01"`). */
  usd: string
  payer: string
}

/** A payment the agent made: the quote, the paid response's status, and the decoded receipt. */
export type PaymentRecord = PaymentQuote & {
  status: number
  receipt?: SettleResponse
}

/** Reads token balances for the optional pre-signing balance check; `undefined` = unknown (not checked). */
export type BalanceReader = {
  getBalance(parameters: { network: string; asset: string; owner: string }): Promise<bigint | undefined>
}

/** Sends the one-time Permit2 approval when the allowance is short (see `createPermit2Approver`). */
export type Permit2Approver = (parameters: {
  network: string
  token: string
  owner: string
  amount: bigint
}) => Promise<void>

/** Options of {@link wrapFetch}. */
export type WrapFetchOptions = {
  /** Keys the agent pays with (an EVM key or account, a Solana keypair, RPC URLs). */
  wallets?: Wallets
  /** Scheme clients used in addition to (or instead of) those built from `wallets`. */
  clients?: readonly SchemeClient[]
  policy?: SpendPolicy
  /** Known assets (decimals for USD valuation); default `createAssetRegistry()`. */
  assets?: AssetRegistry
  /** Spend history for `maxPerDay`; default in memory. */
  ledger?: SpendLedger
  /** Check the balance before signing and skip options the payer cannot afford. */
  balances?: BalanceReader
  /**
   * Opt-in: send the one-time Permit2 approval when a Permit2 option is chosen and the allowance is
   * short (needs the EVM key and an RPC URL for the network in `wallets`; not for smart accounts,
   * whose approval is a transaction of the account itself).
   */
  autoApprovePermit2?: boolean
  /** A custom approver (used instead of the one `autoApprovePermit2` builds). */
  permit2Approver?: Permit2Approver
  /** Called after each paid request. */
  onPayment?: (record: PaymentRecord) => void
  now?: () => number
}
