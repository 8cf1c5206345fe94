import { AppError } from '@tollgate/core'

/**
 * A chart-of-accounts code (docs/conventions.md, 'Ledger'); an account is (environment, code, currency).
 * The chart's `platform:fx:{currency}` and `suspense:{currency}` are `platform:fx` and `suspense`
 * in that currency. `sandbox:funding` is the source of sandbox money and exists in `test` only.
 */
export type AccountCode =
  | `merchant:${string}`
  | 'platform:fees'
  | 'platform:fx'
  | `${HotAccountCode}:shard${number}`
  | `custody:${string}:${string}`
  | `bank:${string}`
  | `momo:${string}`
  | 'suspense'
  | 'sandbox:funding'

/** How the ledger treats an account: its owner, its TigerBeetle-style flags, where it may exist. */
export type AccountPolicy = {
  merchantId: string | null
  /** Credit-normal and never negative: `debits_posted + debits_pending <= credits_posted`. */
  debitsMustNotExceedCredits: boolean
  creditsMustNotExceedDebits: boolean
  testOnly: boolean
}

const codePattern =
  /^(merchant:mer_[A-Za-z0-9]+|platform:fees|platform:fx|platform:(?:fees|fx):shard[1-9][0-9]*|custody:[a-z0-9-]+:[A-Za-z0-9]+|bank:[a-z0-9_-]+|momo:[a-z0-9_-]+|suspense|sandbox:funding)$/

/** The balance account of a merchant (credit-normal, may not go negative). */
export function merchantAccount(merchantId: string): AccountCode {
  return `merchant:${merchantId}`
}

/** The account of an on-chain asset we hold on `network` (`custody:base:USDC`). */
export function custodyAccount(network: string, asset: string): AccountCode {
  return `custody:${network}:${asset}`
}

/**
 * The custody account of what the rails' treasury holds on `chain` (`custody:base-treasury:USDC`);
 * `custodyAccount(chain, asset)` is then what deposit addresses hold. A sweep moves one to the other.
 */
export function treasuryCustodyAccount(chain: string, asset: string): AccountCode {
  return `custody:${chain}-treasury:${asset}`
}

/** Whether `value` is a well-formed chart code. */
export function isAccountCode(value: string): value is AccountCode {
  return codePattern.test(value)
}

/** The policy of a chart code; throws `validation_error` for a code outside the chart. */
export function getAccountPolicy(code: string): AccountPolicy {
  if (!isAccountCode(code)) {
    throw new AppError('validation_error', {
      message: `"${code}" is not a ledger account code`,
      context: { param: 'account' },
    })
  }
  const merchantId = code.startsWith('merchant:') ? code.slice('merchant:'.length) : null
  return {
    merchantId,
    debitsMustNotExceedCredits: merchantId !== null,
    creditsMustNotExceedDebits: false,
    testOnly: code === 'sandbox:funding',
  }
}

/** A shared platform account that every swap touches, split into shards so swaps do not queue on one row. */
export type HotAccountCode = 'platform:fees' | 'platform:fx'

/** Accounts per hot account and currency: the base code (shard 0) and `{code}:shard1` … `:shard7`. */
export const hotAccountShards = 8

/** The codes of every shard of `code`, the base code first; its balance is their sum. */
export function hotAccountCodes(code: HotAccountCode): AccountCode[] {
  return Array.from(
    { length: hotAccountShards },
    (_, k): AccountCode => (k === 0 ? code : `${code}:shard${k}`),
  )
}

/**
 * The shard of `code` a posting keyed by `key` (a swap's quotation id) uses: FNV-1a of the key modulo
 * {@link hotAccountShards}, so concurrent swaps spread over the shards and a replay picks the same one.
 */
export function hotAccountShard(code: HotAccountCode, key: string): AccountCode {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0
  }
  return hotAccountCodes(code)[hash % hotAccountShards] ?? code
}

/** Whether `code` is one of the hot accounts whose balance sums its shards. */
export function isHotAccountCode(code: string): code is HotAccountCode {
  return code === 'platform:fees' || code === 'platform:fx'
}
