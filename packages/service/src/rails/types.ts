import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { ChainName } from '../reference/chains.js'

// The rails: the service's only adapters to the outside world (chains, banks, mobile money, FX,
// screening). Domains (sessions, deposits, payouts, swaps, x402) use these interfaces and never a
// chain client or provider directly. The sandbox implements every one of them on the devnet or as a
// deterministic provider; a production adapter implements the same interface. See docs/rails.md.

/** A database handle that may be a transaction the caller opened (state change + event commit together). */
export type Db = Kysely<Database>

/** How a chain is driven: a real node we speak RPC to, or simulated in the sandbox (no node here). */
export type ChainFamily = 'evm' | 'solana' | 'bitcoin' | 'tron' | 'dogecoin'

/** One asset of a chain: native coin or token, with its on-chain decimals (scale is per chain). */
export type ChainAsset = {
  symbol: string
  kind: 'native' | 'erc20' | 'spl' | 'trc20'
  /** Token contract or SPL mint; null for the native coin. */
  address: string | null
  decimals: number
  /** The ledger currency it credits one-to-one (USDC, USDT); null for coins that must be converted. */
  ledgerCurrency: LedgerCurrency | null
  /** EIP-712 domain of EIP-3009 tokens (x402 `extra`). */
  eip712?: { name: string; version: string }
  /** Owning SPL program of a Solana token (Token or Token-2022); default Token. */
  tokenProgram?: string
}

/** One chain of the spec in one environment (live = mainnets; test = the devnet's networks). */
export type ChainEntry = {
  chain: ChainName
  /** CAIP-2 network id (`eip155:84532`, `solana:EtWT…`, `bip122:…`). */
  network: string
  family: ChainFamily
  assets: ChainAsset[]
  /** Confirmations before funds are final (GET /blockchain/confirmations). */
  confirmations: number
  /** Whether a node is reachable (devnet in the sandbox, configured RPC in live); false = simulate only. */
  hasNode: boolean
  /** Block explorer URL of a transaction hash. */
  explorerTxUrl: (txHash: string) => string
}

/** The registry of chains and assets per environment. */
export type ChainRegistry = {
  list(environment: KeyEnvironment): ChainEntry[]
  get(environment: KeyEnvironment, chain: ChainName): ChainEntry | undefined
  /** The chain whose CAIP-2 id is `network`. */
  getByNetwork(environment: KeyEnvironment, network: string): ChainEntry | undefined
  findAsset(environment: KeyEnvironment, chain: ChainName, symbol: string): ChainAsset | undefined
  /**
   * Whether `address` is a well-formed address of `chain` (checksums checked; real libraries). With an
   * `environment`, Bitcoin and Dogecoin accept only its network (live = mainnet, test = testnet).
   */
  isValidAddress(chain: ChainName, address: string, environment?: KeyEnvironment): boolean
}

/** Who a deposit address belongs to: a payment session, a deposit account, or x402 income of a merchant. */
export type AddressPurpose = 'session' | 'deposit' | 'x402'

/** A derived receiving address, allocated once and never reused across merchants. */
export type DepositAddress = {
  id: string
  merchantId: string
  environment: KeyEnvironment
  chain: ChainName
  network: string
  address: string
  purpose: AddressPurpose
  /** Session id, deposit account id, or merchant id (x402). */
  ownerId: string
  createdAt: Date
}

/** Allocation and lookup of deposit addresses (HD-derived from the master seed). */
/** A `deposit_addresses` row as {@link DepositAddresses.derive} makes it. */
export type NewDepositAddressRow = {
  id: string
  merchant_id: string
  environment: KeyEnvironment
  chain: ChainName
  network: string
  address: string
  purpose: AddressPurpose
  owner_id: string
  derivation_path: string
  created_at: Date
}

/** A deposit-address index reserved ahead for one derivation branch, to be used once by `allocate`. */
export type ReservedIndex = { branch: string; index: number }

export type DepositAddresses = {
  /**
   * Reserves the index of a coming `allocate` of (environment, chain, purpose), from a block of the
   * branch's counter committed on its own (docs/rails.md "Deposit addresses"). Call it outside any
   * transaction: it may wait for that block. The index is never handed out again, used or not.
   * Undefined when indexes are not reserved ahead (blocks of 1): `allocate` then takes the counter's
   * next in its transaction.
   */
  reserveIndex(input: {
    environment: KeyEnvironment
    chain: ChainName
    purpose: AddressPurpose
  }): Promise<ReservedIndex | undefined>
  /** Allocates a fresh address in `db` (which may be the caller's transaction). Idempotent on (purpose, ownerId, chain). */
  allocate(
    db: Db,
    input: {
      merchantId: string
      environment: KeyEnvironment
      chain: ChainName
      purpose: AddressPurpose
      ownerId: string
      /**
       * The owner was created in this transaction, so it has no address yet: the lookup of an
       * existing one is skipped (one statement less). Still idempotent: a conflicting insert returns
       * the existing row.
       */
      newOwner?: boolean
      /** An index from `reserveIndex` for this branch: no counter statement in `db`. */
      reserved?: ReservedIndex | undefined
    },
  ): Promise<DepositAddress>
  /**
   * The `deposit_addresses` row of a new owner's address at a reserved index, derived but not
   * written: for a caller that inserts it within its own statement (POST /payments) and then calls
   * `inserted()` (the watchers of this process re-read their addresses).
   */
  derive(input: {
    merchantId: string
    environment: KeyEnvironment
    chain: ChainName
    purpose: AddressPurpose
    ownerId: string
    reserved: ReservedIndex
  }): { values: NewDepositAddressRow; address: DepositAddress; inserted: () => void }
  find(
    db: Db,
    input: { environment: KeyEnvironment; chain: ChainName; address: string },
  ): Promise<DepositAddress | undefined>
}

/** Status of an incoming transfer: seen in a block, final at the confirmation count, or removed by a reorg. */
export type IncomingTransferStatus = 'seen' | 'confirmed' | 'reverted'

/** An incoming transfer to a watched address, recorded once per (chain, txHash, logIndex). */
export type IncomingTransfer = {
  id: string
  environment: KeyEnvironment
  chain: ChainName
  network: string
  /** Asset symbol (`USDC`, `ETH`). */
  asset: string
  /** Atomic units at the asset's on-chain decimals. */
  amount: bigint
  decimals: number
  txHash: string
  /** Log index (EVM token transfers), instruction index (Solana), 0 for a native EVM transfer. */
  logIndex: number
  fromAddress: string | null
  toAddress: string
  blockNumber: bigint | null
  confirmations: number
  status: IncomingTransferStatus
  address: DepositAddress
  seenAt: Date
  confirmedAt: Date | null
}

/**
 * Called in the database transaction that records a transfer's status change, so a consumer's state
 * change (session, deposit, ledger, event) commits with it or not at all. Must be idempotent: the
 * same (transfer id, status) may be delivered more than once.
 */
export type IncomingTransferHandler = (db: Db, transfer: IncomingTransfer) => Promise<void>

/** The chain watchers' output: consumers subscribe by address purpose. */
export type IncomingTransfers = {
  subscribe(purpose: AddressPurpose, handler: IncomingTransferHandler): () => void
  /** Sandbox: records a simulated transfer to an address on a chain without a node (seen, then confirmed). */
  simulate(input: {
    environment: 'test'
    chain: ChainName
    asset: string
    address: string
    amount: bigint
    confirmations: number
    txHash?: string
  }): Promise<IncomingTransfer>
  list(db: Db, input: { environment: KeyEnvironment; addressIds: string[] }): Promise<IncomingTransfer[]>
  /**
   * Records the transfers to our addresses of a transaction the service submitted itself (an agent
   * payment it settled), read from the chain as a watcher reads them, so the watcher seeing the same
   * transaction later records nothing new. 503 `provider_unavailable` on a chain without a node.
   */
  recordTransaction(input: {
    environment: KeyEnvironment
    chain: ChainName
    txHash: string
  }): Promise<IncomingTransfer[]>
  /**
   * The token transfers of a transaction as the chain shows them (read as `recordTransaction` and the
   * watchers read them), recording nothing: what a caller checks before trusting a claim that the
   * transaction paid someone. Empty for an unknown or failed transaction. 503 `provider_unavailable`
   * on a chain without a node.
   */
  readTransaction(input: {
    environment: KeyEnvironment
    chain: ChainName
    txHash: string
  }): Promise<ChainTransfer[]>
}

/** A token transfer of a transaction as the chain shows it (recipient, asset, amount, confirmations). */
export type ChainTransfer = {
  to: string
  asset: string
  amount: bigint
  decimals: number
  txHash: string
  logIndex: number
  fromAddress: string | null
  blockNumber: bigint | null
  blockHash: string | null
  confirmations: number
}

/** An outbound crypto transfer from the treasury, exactly once per idempotency key. */
export type CryptoSend = {
  id: string
  idempotencyKey: string
  environment: KeyEnvironment
  chain: ChainName
  asset: string
  to: string
  amount: bigint
  status: 'pending' | 'confirmed' | 'failed'
  txHash: string | null
  failureReason: string | null
  createdAt: Date
  updatedAt: Date
}

/** Called in the transaction that records a send's final status (confirmed or failed). */
export type CryptoSendHandler = (db: Db, send: CryptoSend) => Promise<void>

/** Outbound crypto (treasury → address) on EVM through the relayer and on Solana through the fee payer. */
export type CryptoSender = {
  /** Starts (or returns) the send of `idempotencyKey`; never sends twice, across restarts too. */
  send(input: {
    environment: KeyEnvironment
    chain: ChainName
    asset: string
    to: string
    amount: bigint
    idempotencyKey: string
  }): Promise<CryptoSend>
  get(idempotencyKey: string, environment: KeyEnvironment): Promise<CryptoSend | undefined>
  onSettled(handler: CryptoSendHandler): () => void
  /**
   * The treasury address of `chain` (where sends come from and sweeps go) and its fee payers, for
   * funding and reconciliation; undefined on chains the rails cannot sign for (no node or no key).
   */
  getTreasury(
    environment: KeyEnvironment,
    chain: ChainName,
  ): { address: string; feePayers: string[] } | undefined
  /**
   * Moves a confirmed incoming transfer from its deposit address to the treasury (a send with the
   * idempotency key `sweep:<transfer id>`, so once); undefined when the transfer cannot be swept
   * (not confirmed, chain without a node or signer, or a native amount below its gas reserve: see docs/rails.md).
   */
  sweep(incomingTransferId: string): Promise<CryptoSend | undefined>
  /**
   * Opens `owner`'s token account of an SPL `asset` on a Solana chain, the treasury paying (so a
   * transaction that only transfers, such as an x402 payment, can pay `owner`): `exists` when there
   * was one, `opened` when this call opened it, `not_needed` on chains and assets without token
   * accounts or where the rails cannot sign. Safe to repeat. Absent on rails without chains.
   */
  openTokenAccount?(input: {
    environment: KeyEnvironment
    chain: ChainName
    asset: string
    owner: string
  }): Promise<'exists' | 'opened' | 'not_needed'>
}

/** An NGN bank of GET /recipients/banks. */
export type Bank = { name: string; slug: string; code: string; nibssBankCode: string; country: string }

/** A resolved bank account (the holder name comes from the provider). */
export type BankAccountResolution = {
  accountNumber: string
  accountName: string
  bankCode: string
  bankName: string
}

/** A mobile-money institution of a corridor (KES: M-Pesa…, GHS: MTN…). */
export type MobileMoneyInstitution = {
  code: string
  name: string
  currency: 'KES' | 'GHS'
  countryIsoCode: string
}

/** A resolved mobile-money account: corridor, provider and holder. */
export type MobileMoneyResolution = {
  currency: 'KES' | 'GHS'
  countryIsoCode: string
  /** E.164 phone number. */
  accountNumber: string
  accountName: string
  institutionCode: string
  institutionName: string
  accountType: string
}

/** A fiat payout at a provider; `id` is ours and is the provider's idempotency key. */
export type FiatTransfer = {
  id: string
  providerReference: string | null
  status: 'processing' | 'success' | 'failed'
  failureReason: string | null
}

/** A fiat transfer's new status, delivered in the transaction that records it. */
export type FiatTransferHandler = (db: Db, transfer: FiatTransfer) => Promise<void>

/** An NGN bank provider: bank list, name enquiry, transfers with asynchronous results. */
export type BankProvider = {
  listBanks(country: string): Bank[]
  /** Throws AppError `recipient_not_found` for an account the bank does not know. */
  resolveAccount(input: { accountNumber: string; bankCode: string }): Promise<BankAccountResolution>
  transfer(input: {
    id: string
    amount: bigint
    currency: 'NGN'
    account: BankAccountResolution
    narration: string
    /** Owner tag: the sandbox callback route lets only this merchant fire the transfer's callback. */
    merchantId?: string
  }): Promise<FiatTransfer>
  /** Re-queries a transfer (after a timeout); throws `provider_unavailable` when the provider is down. */
  getTransfer(id: string): Promise<FiatTransfer>
  onTransferUpdate(handler: FiatTransferHandler): () => void
}

/** A KES/GHS mobile-money provider. */
export type MobileMoneyProvider = {
  listInstitutions(currency: 'KES' | 'GHS'): MobileMoneyInstitution[]
  resolveAccount(input: {
    currency?: 'KES' | 'GHS'
    phoneNumber: string
    institutionCode: string
    accountName: string
    accountType?: string
  }): Promise<MobileMoneyResolution>
  transfer(input: {
    id: string
    amount: bigint
    currency: 'KES' | 'GHS'
    account: MobileMoneyResolution
    narration: string
    /** Owner tag: the sandbox callback route lets only this merchant fire the transfer's callback. */
    merchantId?: string
  }): Promise<FiatTransfer>
  getTransfer(id: string): Promise<FiatTransfer>
  onTransferUpdate(handler: FiatTransferHandler): () => void
}

/** An NGN virtual account issued for a BVN. */
export type VirtualAccount = {
  currency: 'NGN'
  accountNumber: string
  accountName: string
  bankName: string
  bankCode: string
  accountReference: string
}

/** An inbound NGN transfer into a virtual account (delivered in the transaction that records it). */
export type InboundFiatTransfer = {
  id: string
  environment: KeyEnvironment
  accountReference: string
  amount: bigint
  currency: 'NGN'
  reference: string
  payer: { accountName: string; accountNumber: string; bankName: string; bankCode: string }
  receivedAt: Date
}

/** NGN virtual accounts: issue one per BVN, receive inbound transfers. */
export type VirtualAccountProvider = {
  /**
   * Issues (or returns, for a repeated `id`) the account. `merchantId` and `environment` are optional
   * owner tags the sandbox routes use to keep one merchant from steering another's account.
   */
  create(input: {
    id: string
    bvn: string
    accountName: string
    merchantId?: string
    environment?: KeyEnvironment
  }): Promise<VirtualAccount>
  onInboundTransfer(handler: (db: Db, transfer: InboundFiatTransfer) => Promise<void>): () => void
}

/** A currency of the FX table: fiat, stablecoins and the native coins sessions can be paid in. */
export type FxCurrency = string

/** A rate quoted at an instant: `rate` target units per source unit, exact decimal string with 8 places. */
export type FxRate = { from: FxCurrency; to: FxCurrency; rate: string; at: Date }

/** FX rates (with the house spread applied) and exact conversions (round down, in the house's favour). */
export type FxRates = {
  /**
   * The rate now. `db`: read through the caller's transaction (an incoming-transfer handler runs in
   * one, and PGlite has a single connection, so a read beside it would wait for it forever).
   */
  getRate(from: FxCurrency, to: FxCurrency, options?: { db?: Db }): Promise<FxRate>
  listRates(): Promise<FxRate[]>
  /** Converts `amount` minor units at `fromScale` into minor units at `toScale` at `rate` (rounded down). */
  convert(input: FxConversion): bigint
}

/** A conversion of {@link FxRates.convert} (see docs/rails-fiat.md "Converting and fees"). */
export type FxConversion = {
  /** Minor units of the source currency at `fromScale` decimals (not negative). */
  amount: bigint
  fromScale: number
  toScale: number
  /** Target units per source unit, a decimal string (`"1550.00000000"`). */
  rate: string
  /**
   * `rate` is quoted the other way (source units per target unit): the result is `amount ÷ rate`.
   * Use it where the direct rate is too small for 8 places (NGN → BTC: divide by the BTC → NGN rate).
   */
  inverse?: boolean
  /** `down` (default): the house pays out, never more than the exact value; `up`: the house collects. */
  rounding?: 'down' | 'up'
}

/** AML screening of a counterparty (`amlCheck`); the sandbox answer is steerable by address. */
export type Screening = {
  screen(input: {
    chain: ChainName
    address: string
    txHash?: string
  }): Promise<'passed' | 'failed' | 'pending'>
}

/** One FX rate the sandbox route sets: against USD, either direction, with an optional spread. */
export type SandboxFxRateInput = { from: FxCurrency; to: FxCurrency; rate: string; spreadBps?: number }

/**
 * Controls of the sandbox providers behind the sandbox-only routes (absent on production rails):
 * fire a pending provider callback, receive an NGN transfer into a virtual account, set FX rates.
 */
export type SandboxControls = {
  /**
   * Delivers the provider callback of fiat transfer `id` (bank or mobile money): `outcome` as given,
   * or the outcome the sandbox planned from the account number. Throws `not_found` for an unknown
   * id (or another merchant's, when `merchantId` is given) and `transfer_already_completed` once final.
   */
  completeFiatTransfer(input: {
    id: string
    outcome?: 'success' | 'failed'
    failureReason?: string
    merchantId?: string
  }): Promise<FiatTransfer>
  /**
   * Records an inbound NGN transfer into the virtual account `accountNumber` and delivers it to the
   * `onInboundTransfer` subscribers in the same transaction, once per `reference` (`delivered` is
   * false for a repeated reference).
   */
  simulateInboundTransfer(input: {
    accountNumber: string
    amount: bigint
    reference?: string
    /** Payer details (defaults: a sandbox payer at GTBank); the bank name follows from `bankCode`. */
    payer?: {
      accountName?: string | undefined
      accountNumber?: string | undefined
      bankCode?: string | undefined
    }
    merchantId?: string
    environment: KeyEnvironment
  }): Promise<{ transfer: InboundFiatTransfer; accountNumber: string; delivered: boolean }>
  /** Sets mid rates against USD (persisted); returns the house rates of the pairs set, both ways. */
  setFxRates(rates: SandboxFxRateInput[]): Promise<FxRate[]>
}

/** Every rail, built once by a composition root and passed in `deps.rails`. */
export type Rails = {
  chains: ChainRegistry
  addresses: DepositAddresses
  incoming: IncomingTransfers
  crypto: CryptoSender
  banks: BankProvider
  mobileMoney: MobileMoneyProvider
  virtualAccounts: VirtualAccountProvider
  fx: FxRates
  screening: Screening
  /** Sandbox-only controls (the sandbox providers have them; production rails leave them out). */
  sandboxControls?: SandboxControls
  /** Starts watchers and provider loops; `stop()` ends them. */
  start(): Promise<void>
  stop(): Promise<void>
}
