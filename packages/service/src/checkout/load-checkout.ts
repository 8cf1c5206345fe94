import { AppError, formatAtomicAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { fiatScale } from '../payments/session-money.js'
import type { SessionRow } from '../payments/session-settlement.js'
import type { ChainName } from '../reference/chains.js'
import { toWalletUri } from './wallet-uri.js'

/**
 * What the customer sees of a session, in the order of the page (docs/checkout.md "What the page
 * reveals"): waiting for a choice, waiting for funds, a transfer seen, confirming, partially paid,
 * then paid, underpaid, expired or failed.
 */
export type CheckoutStatus =
  | 'choose'
  | 'waiting'
  | 'seen'
  | 'confirming'
  | 'partial'
  | 'paid'
  | 'underpaid'
  | 'expired'
  | 'failed'

/** One asset-and-chain pair the customer may pick on an open session. */
export type CheckoutOption = { value: string; asset: string; chain: string; label: string }

/** The public face of a session: only what the hosted checkout shows, nothing else. */
export type Checkout = {
  reference: string
  environment: KeyEnvironment
  merchant: { name: string; logoUrl: string | null }
  title: string
  description: string
  amount: string
  currency: string
  status: CheckoutStatus
  asset: string | null
  chain: string | null
  cryptoAmount: string | null
  amountReceived: string | null
  amountDue: string | null
  address: string | null
  walletUri: string | null
  options: CheckoutOption[]
  expiresAt: string
  successUrl: string | null
  cancelUrl: string | null
}

/** The session row behind a public reference (any merchant), or 404 `not_found`. */
export async function findCheckoutSession(deps: Pick<Deps, 'db'>, reference: string): Promise<SessionRow> {
  const row = await deps.db
    .selectFrom('payment_sessions')
    .selectAll()
    .where('reference', '=', reference)
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', { message: 'Payment session not found', context: { param: 'reference' } })
  }
  return row
}

/** Loads the public {@link Checkout} of a session reference. */
export async function loadCheckout(deps: Pick<Deps, 'db' | 'rails' | 'clock'>, reference: string) {
  const row = await findCheckoutSession(deps, reference)
  const merchant = await deps.db
    .selectFrom('merchants')
    .select(['name', 'business_name', 'logo_url'])
    .where('id', '=', row.merchant_id)
    .executeTakeFirstOrThrow()
  const pending = await deps.db
    .selectFrom('payment_session_transactions')
    .select(['confirmations'])
    .where('session_id', '=', row.id)
    .where('status', '=', 'pending')
    .execute()
  return toCheckout(deps, {
    row,
    merchant: { name: merchant.business_name ?? merchant.name, logoUrl: merchant.logo_url },
    pendingConfirmations: pending.map((p) => Number(p.confirmations)),
  })
}

/** Builds the public {@link Checkout} of a session row (pure: the status is read at `deps.clock`). */
export function toCheckout(
  deps: Pick<Deps, 'rails' | 'clock'>,
  input: { row: SessionRow; merchant: Checkout['merchant']; pendingConfirmations: number[] },
): Checkout {
  const { row } = input
  const decimals = row.asset_decimals
  const wanted = row.crypto_amount === null ? null : BigInt(row.crypto_amount)
  const seen = BigInt(row.amount_seen)
  const crypto = (value: bigint | null) =>
    value === null || decimals === null ? null : formatAtomicAmount(value, decimals)
  const entry = row.chain ? deps.rails.chains.get(row.environment, row.chain as ChainName) : undefined
  const token = entry?.assets.find((a) => a.symbol === row.asset)
  const walletUri =
    row.address && entry && token && wanted !== null && decimals !== null
      ? toWalletUri({
          family: entry.family,
          network: entry.network,
          tokenAddress: token.address,
          to: row.address,
          atomicAmount: wanted - seen > 0n ? wanted - seen : wanted,
          decimals,
        })
      : null
  const due = wanted !== null && seen > 0n && seen < wanted ? wanted - seen : null
  return {
    reference: row.reference,
    environment: row.environment,
    merchant: input.merchant,
    title: row.title,
    description: row.description ?? '',
    amount: formatAtomicAmount(BigInt(row.amount), fiatScale),
    currency: row.currency,
    status: toStatus(deps, row, input.pendingConfirmations),
    asset: row.asset,
    chain: row.chain,
    cryptoAmount: crypto(wanted),
    amountReceived: seen > 0n ? crypto(seen) : null,
    amountDue: crypto(due),
    address: row.address,
    walletUri,
    options: row.address === null ? listOptions(deps, row) : [],
    expiresAt: row.expires_at.toISOString(),
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
  }
}

function toStatus(
  deps: Pick<Deps, 'clock'>,
  row: SessionRow,
  pendingConfirmations: number[],
): CheckoutStatus {
  if (row.state === 'closed') {
    switch (row.payment_status) {
      case 'completed':
        return 'paid'
      case 'underpaid':
        return 'underpaid'
      case 'failed':
        return 'failed'
      default:
        return 'expired'
    }
  }
  if (pendingConfirmations.length > 0) {
    return pendingConfirmations.some((c) => c > 0) ? 'confirming' : 'seen'
  }
  if (row.expires_at <= deps.clock.now()) {
    // The expiry job has not run yet; nothing is in flight, so the customer can no longer pay.
    return 'expired'
  }
  if (row.address === null) {
    return 'choose'
  }
  return BigInt(row.amount_confirmed) > 0n ? 'partial' : 'waiting'
}

// EVM and Solana have wallet URIs and a QR code; other families are not offered on the hosted page, and
// an open asset offers the tokens (stablecoins), not the volatile native coins.
const hostedFamilies = new Set(['evm', 'solana'])

function listOptions(deps: Pick<Deps, 'rails'>, row: SessionRow): CheckoutOption[] {
  const entries = deps.rails.chains.list(row.environment)
  // Only chains the service reads (has a node for), so a payment is seen; all of them when none has one.
  const watched = entries.some((e) => e.hasNode)
  return entries.flatMap((entry) => {
    if (
      !hostedFamilies.has(entry.family) ||
      (watched && !entry.hasNode) ||
      (row.chain !== null && entry.chain !== row.chain)
    ) {
      return []
    }
    return entry.assets
      .filter((a) => (row.asset === null ? a.kind !== 'native' : a.symbol === row.asset))
      .map((a) => ({
        value: `${a.symbol}:${entry.chain}`,
        asset: a.symbol,
        chain: entry.chain,
        label: `${a.symbol} on ${toChainLabel(entry.chain)}`,
      }))
  })
}

/** A chain's display name (`base` → `Base`, `bsc` → `BNB Smart Chain`). */
export function toChainLabel(chain: string): string {
  const names: Record<string, string> = { bsc: 'BNB Smart Chain', ethereum: 'Ethereum', solana: 'Solana' }
  return names[chain] ?? chain.charAt(0).toUpperCase() + chain.slice(1)
}
