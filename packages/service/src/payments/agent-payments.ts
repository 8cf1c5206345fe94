import {
  AppError,
  type FacilitatorClient,
  type FacilitatorRequest,
  formatAtomicAmount,
  type PaymentRequirements,
  REASONS,
  type SchemeName,
} from '@tollgate/core'
import { Eip3009Payload, Permit2Payload } from '@tollgate/evm'
import { getPaymentFeePayer } from '@tollgate/svm'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import type { ChainName } from '../reference/chains.js'
import { createOffers, resolveX402Asset } from '../x402/build-requirements.js'
import { type Check, toOrderedChecks } from '../x402/verify-x402.js'
import { assertAgentAsset } from './assert-agent-asset.js'
import { findSessionByReference, toSessionViews } from './load-payment-session.js'
import type { SessionRow } from './session-settlement.js'
import { toSessionResponse } from './to-session-response.js'

/** Body of POST /payments/agent/verify and /settle (docs/sessions.md "Agent payments"). */
export type AgentPaymentInput = {
  sessionReference: string
  scheme: SchemeName
  chain: ChainName
  asset: string
  /** The scheme's signed payload, in the x402 shape (eip3009 may also be the flat spec shape). */
  payload: Record<string, unknown>
}

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Checks of an agent payment, in the order they run; a failure stops the later ones. */
export const agentCheckNames = [
  'session',
  'recipient',
  'amount',
  'timestamp',
  'authorization',
  'nonce',
  'balance',
] as const
type AgentCheck = (typeof agentCheckNames)[number]

const agentCheckOf: [AgentCheck, RegExp][] = [
  ['session', /^session_/],
  ['recipient', /recipient|destination|pay_to/],
  ['amount', /amount|value_mismatch/],
  ['timestamp', /valid_before|valid_after|deadline|too_early|not_yet_valid|expired|block_height/],
  ['nonce', /nonce|duplicate_settlement/],
  ['balance', /insufficient|allowance_required/],
]

/** The verdict on an agent payment: valid, or the reason and the check that failed. */
export type AgentVerdict = {
  valid: boolean
  reason: string | null
  payer: string | null
  amount: string
  checks: Record<AgentCheck, Check>
}

type Prepared =
  | { ok: true; request: FacilitatorRequest; due: bigint; decimals: number; row?: SessionRow }
  | { ok: false; reason: string; due: bigint; decimals: number }

/** Input of {@link verifyAgentPayment}: the spec's body (`sessionReference` is optional there). */
export type AgentVerifyInput = Omit<AgentPaymentInput, 'sessionReference'> & {
  sessionReference?: string | undefined
}

// Without a session nothing says who must be paid or how much: those checks are not made.
const sessionChecks: readonly AgentCheck[] = ['session', 'recipient', 'amount']

/**
 * POST /payments/agent/verify: checks an agent's signed payment with the in-process facilitator
 * (signature, time window, nonce, balance), without sending anything; with a `sessionReference`
 * also against that session (open, its chain and asset, its address, the amount still due), without
 * one against the payload's own recipient and value (`session`, `recipient`, `amount` not checked).
 */
export async function verifyAgentPayment(
  deps: Pick<Deps, 'db' | 'rails' | 'clock'>,
  facilitator: FacilitatorClient,
  input: Scope & AgentVerifyInput,
): Promise<AgentVerdict> {
  const { sessionReference } = input
  const prepared =
    sessionReference === undefined
      ? await prepareFromPayload(deps, facilitator, input)
      : await prepare(deps, facilitator, { ...input, sessionReference })
  const verdict = prepared.ok
    ? toVerdict(prepared, await facilitator.verify(prepared.request))
    : toVerdict(prepared, { isValid: false, invalidReason: prepared.reason })
  if (sessionReference === undefined) {
    for (const name of sessionChecks) {
      verdict.checks[name] = 'not_checked'
    }
  }
  return verdict
}

/**
 * POST /payments/agent/settle: settles the payment on-chain through the in-process facilitator
 * (which pays the gas; exactly once per signed payload) and records its transfer through the chain
 * rails, so the session moves through the same state machine a watcher drives and a watcher seeing
 * the transaction later changes nothing. An invalid payment is 400 `invalid_payment` with the checks.
 */
export async function settleAgentPayment(
  deps: Pick<Deps, 'db' | 'rails' | 'clock' | 'settings'>,
  facilitator: FacilitatorClient,
  input: Scope & AgentPaymentInput & { format: ResponseFormat },
) {
  const prepared = await prepare(deps, facilitator, input)
  if (!prepared.ok) {
    throw invalidPayment(toVerdict(prepared, { isValid: false, invalidReason: prepared.reason }))
  }
  const result = await facilitator.settle(prepared.request)
  const pending = !result.success && result.errorReason === REASONS.settlementPending
  if (!result.success && !pending) {
    const reason = result.errorReason ?? 'unexpected_settle_error'
    const verdict = toVerdict(prepared, { isValid: false, invalidReason: reason })
    // A payment the facilitator refused before sending fails one of the checks; otherwise it was sent and failed.
    if (Object.values(verdict.checks).includes('fail') && verdict.checks.authorization !== 'fail') {
      throw invalidPayment(verdict)
    }
    throw new AppError('settlement_failed', {
      message: `The payment could not be settled: ${reason}`,
      context: { details: { errorReason: reason, transaction: result.transaction || null } },
    })
  }
  // A pending transaction is not in a block yet: the session's watcher records it when it lands.
  const recorded =
    pending || result.transaction === ''
      ? []
      : await deps.rails.incoming.recordTransaction({
          environment: input.environment,
          chain: input.chain,
          txHash: result.transaction,
        })
  const row = await findSessionByReference(deps.db, { ...input, reference: input.sessionReference })
  const [view] = await toSessionViews(deps.db, [row], { transactions: true })
  return {
    transaction: {
      txHash: result.transaction,
      // As a session's blockchain transaction: pending below the chain's confirmation count.
      status: recorded[0]?.status === 'confirmed' ? ('confirmed' as const) : ('pending' as const),
      payer: result.payer ?? null,
      chain: input.chain,
      asset: input.asset,
      amount: formatAtomicAmount(prepared.due, prepared.decimals),
    },
    session: view ? toSessionResponse(deps, view, input.format) : null,
  }
}

function resolveSchemeAsset(deps: Pick<Deps, 'rails'>, input: Scope & AgentVerifyInput) {
  assertAgentAsset(deps, input)
  const resolved = resolveX402Asset(deps, input)
  const { entry, asset } = resolved
  if (!asset.transferMethods.includes(input.scheme)) {
    throw new AppError('unknown_asset', {
      message: `${input.asset} on ${input.chain} is not paid with ${input.scheme}: use ${asset.transferMethods.join(' or ')}`,
      context: { network: entry.network, asset: input.asset },
    })
  }
  return resolved
}

// The recipient and value an EVM payload names itself (eip3009's authorization, permit2's witness).
function toPayloadTerms(scheme: SchemeName, payload: Record<string, unknown>) {
  if (scheme === 'eip3009') {
    const parsed = Eip3009Payload.safeParse(payload)
    return parsed.success
      ? { payTo: parsed.data.authorization.to, value: parsed.data.authorization.value }
      : undefined
  }
  const parsed = Permit2Payload.safeParse(payload)
  return parsed.success
    ? {
        payTo: parsed.data.permit2Authorization.witness.to,
        value: parsed.data.permit2Authorization.permitted.amount,
      }
    : undefined
}

async function prepareFromPayload(
  deps: Pick<Deps, 'rails'>,
  facilitator: FacilitatorClient,
  input: Scope & AgentVerifyInput,
): Promise<Prepared> {
  const { entry, asset } = resolveSchemeAsset(deps, input)
  if (input.scheme === 'solana') {
    // A Solana transfer names the recipient's token account, not its owner, so the payload alone
    // does not give the payTo the facilitator checks against (docs/sessions.md "Agent payments").
    throw new AppError('validation_error', {
      message: 'Invalid request: body.sessionReference: required for the solana scheme',
      context: {
        param: 'sessionReference',
        details: [
          { field: 'body.sessionReference', message: 'required for the solana scheme', code: 'custom' },
        ],
      },
    })
  }
  const payload = toSchemePayload(input.scheme, input.payload)
  const terms = toPayloadTerms(input.scheme, payload)
  const value = terms ? BigInt(terms.value) : 0n
  if (!terms || value <= 0n) {
    return {
      ok: false,
      reason: terms ? 'invalid_payment_amount' : 'invalid_payload',
      due: value,
      decimals: asset.decimals,
    }
  }
  const [offer] = await createOffers(facilitator, {
    entry,
    asset,
    amount: value,
    payTo: terms.payTo,
    methods: [input.scheme],
  })
  if (!offer) {
    throw new AppError('internal_error', { message: `No ${input.scheme} offer for ${input.asset}` })
  }
  return {
    ok: true,
    due: value,
    decimals: asset.decimals,
    request: {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        resource: { url: 'urn:tollgate:agent-payment' },
        accepted: offer,
        payload,
      },
      paymentRequirements: offer satisfies PaymentRequirements,
    },
  }
}

async function prepare(
  deps: Pick<Deps, 'db' | 'rails' | 'clock'>,
  facilitator: FacilitatorClient,
  input: Scope & AgentPaymentInput,
): Promise<Prepared> {
  const { entry, asset } = resolveSchemeAsset(deps, input)
  const row = await findSessionByReference(deps.db, { ...input, reference: input.sessionReference })
  const due = BigInt(row.crypto_amount ?? 0) - BigInt(row.amount_seen)
  const refused = (reason: string): Prepared => ({ ok: false, reason, due, decimals: asset.decimals })
  if (row.state !== 'open') {
    return refused('session_closed')
  }
  if (row.expires_at <= deps.clock.now()) {
    return refused('session_expired')
  }
  if (row.address === null || row.crypto_amount === null) {
    return refused('session_has_no_address')
  }
  if (row.chain !== input.chain || row.asset !== asset.symbol) {
    return refused('session_chain_or_asset_mismatch')
  }
  if (due <= 0n) {
    return refused('session_already_paid')
  }
  const [offer] = await createOffers(facilitator, {
    entry,
    asset,
    amount: due,
    payTo: row.address,
    methods: [input.scheme],
  })
  if (!offer) {
    throw new AppError('internal_error', { message: `No ${input.scheme} offer for ${input.asset}` })
  }
  const payload = toSchemePayload(input.scheme, input.payload)
  // The facilitator may have several Solana fee payers: the payment names the one it was signed for
  // (the facilitator refuses one that is not its own).
  const feePayer =
    typeof payload.transaction === 'string' ? getPaymentFeePayer(payload.transaction) : undefined
  const requirements =
    input.scheme === 'solana' && feePayer ? { ...offer, extra: { ...offer.extra, feePayer } } : offer
  return {
    ok: true,
    row,
    due,
    decimals: asset.decimals,
    request: {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        resource: { url: `urn:tollgate:payment-session:${row.reference}` },
        accepted: requirements,
        payload,
      },
      paymentRequirements: requirements satisfies PaymentRequirements,
    },
  }
}

// eip3009 may come flat, as the spec lists its fields; the facilitator takes x402's nested shape.
function toSchemePayload(scheme: SchemeName, payload: Record<string, unknown>): Record<string, unknown> {
  if (scheme !== 'eip3009' || 'authorization' in payload) {
    return payload
  }
  const { signature, from, to, value, validAfter, validBefore, nonce } = payload
  return { signature, authorization: { from, to, value, validAfter, validBefore, nonce } }
}

function toVerdict(
  prepared: { due: bigint; decimals: number },
  verdict: { isValid: boolean; invalidReason?: string | undefined; payer?: string | undefined },
): AgentVerdict {
  return {
    valid: verdict.isValid,
    reason: verdict.isValid ? null : (verdict.invalidReason ?? 'invalid_payload'),
    payer: verdict.payer ?? null,
    amount: formatAtomicAmount(prepared.due > 0n ? prepared.due : 0n, prepared.decimals),
    checks: toOrderedChecks(agentCheckNames, agentCheckOf, {
      isValid: verdict.isValid,
      invalidReason: verdict.invalidReason,
      fallback: 'authorization',
    }),
  }
}

function invalidPayment(verdict: AgentVerdict): AppError {
  return new AppError('invalid_payment', {
    message: `The payment is not valid for this session: ${verdict.reason}`,
    context: { details: verdict },
  })
}
