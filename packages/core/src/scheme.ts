import type { Asset, SchemeName } from './assets.js'
import { getNetworkFamily, type Network } from './networks.js'
import type {
  SettleResponse,
  SupportedKind,
  SupportedResponse,
  VerifyResponse,
} from './schemas/facilitator-responses.js'
import type { FacilitatorRequest, PaymentPayload, SchemePayload } from './schemas/payment-payload.js'
import type { PaymentRequirements } from './schemas/payment-requirements.js'

/** Options of {@link SchemeFacilitator.verify}. */
export type VerifyOptions = {
  /** Run the on-chain simulation (default true; settle re-verifies without it). */
  simulate?: boolean
}

/**
 * What the facilitator hands a scheme's `settle` so settlement is exactly-once and durable.
 * The facilitator has already claimed the payment's settlement key in its store. `Prepared` is
 * what the scheme's own `prepareSettle` answers.
 */
export type SettleContext<Prepared = unknown> = {
  /**
   * A transaction an earlier settle of this same payment broadcast (from the settlement store).
   * The scheme re-awaits it. It may broadcast again only when the chain proves the payment can
   * no longer happen through that transaction (EVM: the node dropped it, and the token spends the
   * authorization nonce at most once), recording the new one through `recordBroadcast` first.
   */
  previousTransaction?: string
  /**
   * What the scheme's `prepareSettle` answered for this payment, when it has one and the
   * facilitator ran it; absent on re-settles and after waiting for another process.
   */
  prepared?: Prepared | undefined
  /**
   * Records the transaction id durably. The scheme calls it as soon as the id is known (for EVM,
   * before or right after broadcasting the signed transaction) and before waiting for it. A later
   * call within the same settle (even after it answered) records a replacement, so it must be a
   * transaction that can only execute if the earlier one does not (EVM: same sender and nonce).
   */
  recordBroadcast(transaction: string): Promise<void>
}

/**
 * The facilitator side of one Tollgate scheme: verifies and settles payments on its networks.
 * Payloads arrive in v2 form (v1 is normalized first, see `normalizeFacilitatorRequest`).
 * `Prepared` is the type of the checks `prepareSettle` hands to `settle`.
 */
export interface SchemeFacilitator<Prepared = unknown> {
  readonly name: SchemeName
  /** CAIP-2 networks this instance serves. */
  readonly networks: readonly Network[]
  /** Whether this scheme handles `payment` (e.g. permit2 takes payloads with `permit2Authorization`). */
  canHandle(payment: PaymentPayload, requirements: PaymentRequirements): boolean
  /** The `extra` of this scheme's `/supported` kind on `network` (Solana: `{ feePayer }`). */
  getSupportedExtra(network: Network): Record<string, unknown> | undefined
  /** Addresses that sign or pay fees on `network` (`/supported` `signers`). */
  getSigners(network: Network): string[]
  /**
   * A stable key that identifies one payment for exactly-once settlement (for example
   * `eip3009:<chainId>:<asset>:<from>:<nonce>`); `undefined` when the payload is malformed.
   */
  getSettlementKey(payment: PaymentPayload, requirements: PaymentRequirements): string | undefined
  /**
   * Optional: the payer the payload names before any check (EIP-3009 `from`, Permit2 owner), for
   * per-payer limits ahead of the scheme's work; `undefined` when the payload names none.
   */
  getPayer?(payment: PaymentPayload): string | undefined
  verify(
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    options?: VerifyOptions,
  ): Promise<VerifyResponse>
  settle(
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    context: SettleContext<Prepared>,
  ): Promise<SettleResponse>
  /**
   * Optional: the checks `settle` runs before it broadcasts (signature, state reads), run while
   * the facilitator claims the payment in its settlement store so the two overlap. The answer
   * reaches `settle` as `context.prepared`, and is dropped when the claim shows the payment
   * settled or in flight elsewhere. It must not broadcast or write anything.
   */
  prepareSettle?(payment: PaymentPayload, requirements: PaymentRequirements): Promise<Prepared>
}

/** Input of {@link SchemeServer.createRequirements}. */
export type CreateRequirementsParameters = {
  asset: Asset
  /** Price in the asset's atomic units (> 0). */
  amount: bigint
  payTo: string
  /** Seconds the signed payment stays valid; default 300. */
  maxTimeoutSeconds?: number
  /** The facilitator's `/supported` kind for this network, when the scheme needs its `extra` (Solana fee payer). */
  supportedKind?: SupportedKind
  /** Extra fields merged into `extra` (e.g. a Solana memo). */
  extra?: Record<string, unknown>
}

/** The merchant side of a scheme: builds the requirements a 402 offers. */
export interface SchemeServer {
  readonly name: SchemeName
  createRequirements(parameters: CreateRequirementsParameters): PaymentRequirements
  /**
   * Optional: the key that identifies one payment whatever its encoding (the facilitator's
   * settlement key, e.g. the EIP-3009 authorization's signer and nonce), which the middleware
   * claims so one payment buys one response; `undefined` when the payload is malformed.
   */
  getPaymentKey?(payment: PaymentPayload, requirements: PaymentRequirements): string | undefined
}

/** The payer side of a scheme: signs a payment for a requirement it can pay. */
export interface SchemeClient {
  readonly name: SchemeName
  /** Whether this client holds a key for the requirement's network and can sign for its asset. */
  canPay(requirements: PaymentRequirements): boolean
  /** The payer's address on `network`, if this client has a key there. */
  getAddress(network: string): string | undefined
  /** Signs and returns the scheme payload (the `payload` field of a PaymentPayload). */
  createPayload(requirements: PaymentRequirements): Promise<SchemePayload>
}

/**
 * Options of {@link FacilitatorClient.settle}. Support is optional: Tollgate's in-process facilitator
 * runs `onSettled`, an HTTP client or another facilitator ignores it, so a caller must treat "the
 * hook was not called" as "do the work after settle returns".
 */
export type SettleOptions = {
  /**
   * Called with the successful result by the one call that settled the payment (the claim owner),
   * at the same time as the facilitator writes its own outcome, and awaited before `settle`
   * returns. Not called for a failed or pending outcome, for a stored outcome a repeat gets, or for
   * a caller that shares another caller's settle in flight. When it throws, the facilitator's
   * outcome is still stored and `settle` rejects with its error. The work must be idempotent per
   * transaction: a caller whose hook did not run (or failed) does it after `settle`, and a repeat
   * of the payment later never calls the hook, so the same work can be attempted more than once.
   */
  onSettled?: (result: SettleResponse, outcome?: SettledOutcomeWrite) => Promise<void>
  /**
   * The database handle `onSettled` writes to. When the facilitator's settlement store is on the
   * same handle, `onSettled` gets the store's outcome write as its second argument, to run in one
   * of its own statements so that both commit together (one commit instead of two). The hook then
   * owns the write: it calls `outcome.written(stored)` once the statement holding it committed, or
   * `outcome.release()` if it will not run it (the facilitator then writes it alone, at once). A
   * hook that returns or throws having done neither has it written after it.
   */
  database?: unknown
  /**
   * Who asks (a merchant, an API token), for the facilitator's per-caller settle limit; an HTTP
   * client or another facilitator ignores it.
   */
  caller?: string
}

/** The settlement store's outcome write, offered to an `onSettled` hook on the same database. */
export type SettledOutcomeWrite = {
  /**
   * The write as a query (a Kysely update on the store's handle) to embed in a statement, e.g. as
   * a CTE; it yields one row when this settle still held the payment, none when another took over.
   */
  readonly query: unknown
  /** The settlement key the write is for: the `key` of the rows {@link queryWith} yields. */
  readonly key: string
  /**
   * This write and `others` (writes the same facilitator handed over) as one query, for a statement
   * carrying several settles' work (a batch). Its text is the same however many writes it holds
   * (they travel as one JSON parameter), so it is prepared once. It yields one row `{ key }` per
   * write whose settle still held its payment; call each write's `written` with whether its key
   * came back. Throws for a write another store handed over.
   */
  queryWith(others: readonly SettledOutcomeWrite[]): unknown
  /** The statement holding `query` committed; `stored` is whether it yielded a row. */
  written(stored: boolean): void
  /** The hook will not run `query`: the facilitator writes the outcome alone, now. */
  release(): void
}

/**
 * A facilitator as merchants see it: ours in-process, ours over HTTP, or any x402 facilitator.
 * Invalid payments are data in the responses; transport failures throw `facilitator_unreachable`.
 */
export interface FacilitatorClient {
  verify(request: FacilitatorRequest): Promise<VerifyResponse>
  /** Settles a payment; `options` is optional and a client may ignore it (see {@link SettleOptions}). */
  settle(request: FacilitatorRequest, options?: SettleOptions): Promise<SettleResponse>
  getSupported(): Promise<SupportedResponse>
}

/**
 * Which Tollgate scheme a requirement asks for: exact on Solana is `solana`; exact on EVM is
 * `permit2` when `extra.assetTransferMethod` says so, else `eip3009`. `undefined` otherwise.
 */
export function getSchemeName(
  requirements: Pick<PaymentRequirements, 'scheme' | 'network' | 'extra'>,
): SchemeName | undefined {
  if (requirements.scheme !== 'exact') {
    return undefined
  }
  const family = getNetworkFamily(requirements.network)
  if (family === 'svm') {
    return 'solana'
  }
  if (family === 'evm') {
    return requirements.extra?.assetTransferMethod === 'permit2' ? 'permit2' : 'eip3009'
  }
  return undefined
}
