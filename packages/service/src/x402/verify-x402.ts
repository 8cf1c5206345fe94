import { type FacilitatorClient, formatAtomicAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type PayToCache, parseX402Request } from './parse-x402-request.js'

/** Reason given when a payment's payTo is not the merchant's (ours: the x402 reasons have none for it). */
export const payToNotAllowedReason = 'invalid_pay_to_not_merchant_address'

/** Result of one check: passed, failed, or not reached because an earlier one failed. */
export type Check = 'pass' | 'fail' | 'not_checked'
type Checks = { timestamp: Check; nonce: Check; balance: Check }

// Which check an x402 invalid reason belongs to. A failure in one of them means the earlier ones
// passed; any other reason (signature, amount, recipient…) stops the scheme before these run.
const checkOf: [keyof Checks, RegExp][] = [
  ['timestamp', /valid_before|valid_after|deadline|too_early|not_yet_valid|expired/],
  ['nonce', /nonce|duplicate_settlement/],
  ['balance', /insufficient|allowance_required/],
]

/**
 * Per-check results of a verdict: every check passes when it is valid; otherwise the check whose
 * pattern matches `invalidReason` (else `fallback`, else none) fails, the earlier ones in `order`
 * passed and the later ones were not reached.
 */
export function toOrderedChecks<K extends string>(
  order: readonly K[],
  patterns: readonly [K, RegExp][],
  verdict: { isValid: boolean; invalidReason: string | undefined; fallback?: K },
): Record<K, Check> {
  const failed = verdict.isValid
    ? undefined
    : (patterns.find(([, pattern]) => pattern.test(verdict.invalidReason ?? ''))?.[0] ?? verdict.fallback)
  const at = failed === undefined ? (verdict.isValid ? order.length : -1) : order.indexOf(failed)
  const entries = order.map((name, index): [K, Check] => [
    name,
    at === -1 ? 'not_checked' : index < at ? 'pass' : index === at ? 'fail' : 'not_checked',
  ])
  return Object.fromEntries(entries) as Record<K, Check>
}

/** The per-check results of POST /x402/verify for a facilitator verdict (docs/x402-merchant.md). */
export function toChecks(isValid: boolean, invalidReason: string | undefined): Checks {
  return toOrderedChecks(['timestamp', 'nonce', 'balance'], checkOf, { isValid, invalidReason })
}

/**
 * POST /x402/verify: checks a signed payment with the in-process facilitator, without settling, in the
 * merchant's context: a payTo the merchant does not own is invalid whatever the signature says.
 */
export async function verifyX402(
  deps: Pick<Deps, 'db' | 'rails'>,
  facilitator: FacilitatorClient,
  input: { merchantId: string; environment: KeyEnvironment; body: unknown },
  payToCache?: PayToCache,
) {
  const parsed = await parseX402Request(deps, input, payToCache)
  const verdict = parsed.payToAllowed
    ? await facilitator.verify(parsed.request)
    : { isValid: false, invalidReason: payToNotAllowedReason, payer: undefined }
  return {
    isValid: verdict.isValid,
    invalidReason: verdict.isValid ? null : (verdict.invalidReason ?? 'invalid_payload'),
    payer: verdict.payer ?? null,
    chain: parsed.entry.chain,
    asset: parsed.asset.symbol,
    payTo: parsed.payTo,
    amount: formatAtomicAmount(parsed.amount, parsed.asset.decimals),
    checks: toChecks(verdict.isValid, verdict.invalidReason),
  }
}
