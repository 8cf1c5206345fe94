import type { AppErrorCode, RequestErrorContext } from '@tollgate/core'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

// The service's own codes, added to core's AppError (see docs/conventions.md "Envelope and errors"). Codes shared
// with other HTTP surfaces (unauthorized, not_found, payload_too_large) live in core.
declare module '@tollgate/core' {
  interface AppErrorContexts {
    validation_error: RequestErrorContext
    forbidden: RequestErrorContext
    unsupported_media_type: RequestErrorContext
    insufficient_balance: RequestErrorContext
    pending_transfer_already_resolved: RequestErrorContext
    pending_transfer_expired: RequestErrorContext
    idempotency_key_reused: RequestErrorContext
    idempotency_key_in_use: RequestErrorContext
    rate_limited: RequestErrorContext
    provider_unavailable: RequestErrorContext
    /** An x402 payment whose payTo is neither the merchant's x402 address nor a payTo it named. */
    pay_to_not_allowed: RequestErrorContext
    /** The facilitator could not settle an x402 payment (details carry its errorReason). */
    settlement_failed: RequestErrorContext
    /** The facilitator answered a settlement the chain does not show (token, recipient and value of the payment). */
    settlement_unverified: RequestErrorContext
    /** An agent payment that fails a check of POST /payments/agent/* (details, and data on verify, carry the verdict). */
    invalid_payment: RequestErrorContext & { data?: unknown }
    recipient_not_found: RequestErrorContext
    /** POST /payouts: the rail refused the payout; `data` carries the failed payout. */
    payout_failed: RequestErrorContext & { data?: unknown }
    transfer_already_completed: RequestErrorContext
    unsupported_asset_chain: RequestErrorContext
    daily_limit_exceeded: RequestErrorContext
    quote_expired: RequestErrorContext
    quote_already_used: RequestErrorContext
    duplicate_reference: RequestErrorContext
    otp_required: RequestErrorContext
    invalid_session_state: RequestErrorContext
    customer_email_taken: RequestErrorContext
    /** A `sk_test_` key sent to a server that refuses test keys (`tollgate serve`). */
    test_key_not_allowed: RequestErrorContext
    /** A stored secret whose key id is not in the keyring, or whose ciphertext does not authenticate. */
    secret_unreadable: { keyId: string }
  }
}

/** How the service answers one error code: the HTTP status and the public wire code. */
export type HttpErrorMapping = { status: ContentfulStatusCode; wire: string }

const as = (status: ContentfulStatusCode, wire: string): HttpErrorMapping => ({ status, wire })

/**
 * The one table from error code to HTTP status and public wire code of the service API. Core's codes
 * thrown by core, evm or svm inside a route map to the service's documented wire codes (docs/service.md);
 * a code missing here is unexpected and answered as a logged 500 `internal_error`.
 */
export const serviceErrorTable: Partial<Record<AppErrorCode, HttpErrorMapping>> = {
  unauthorized: as(401, 'unauthorized'),
  test_key_not_allowed: as(401, 'test_key_not_allowed'),
  forbidden: as(403, 'forbidden'),
  not_found: as(404, 'not_found'),
  validation_error: as(400, 'validation_error'),
  invalid_request: as(400, 'validation_error'),
  invalid_amount: as(400, 'validation_error'),
  invalid_network: as(400, 'validation_error'),
  unsupported_scheme: as(400, 'validation_error'),
  unknown_asset: as(400, 'unsupported_asset_chain'),
  invalid_json: as(400, 'invalid_json'),
  insufficient_balance: as(400, 'insufficient_balance'),
  quote_expired: as(400, 'quote_expired'),
  quote_already_used: as(400, 'quote_already_used'),
  customer_email_taken: as(409, 'customer_email_taken'),
  pending_transfer_already_resolved: as(409, 'pending_transfer_already_resolved'),
  pending_transfer_expired: as(409, 'pending_transfer_expired'),
  idempotency_key_reused: as(422, 'idempotency_key_reused'),
  idempotency_key_in_use: as(409, 'idempotency_key_in_use'),
  rate_limited: as(429, 'rate_limited'),
  payload_too_large: as(413, 'payload_too_large'),
  unsupported_media_type: as(415, 'unsupported_media_type'),
  provider_unavailable: as(503, 'provider_unavailable'),
  payout_failed: as(500, 'payout_failed'),
  recipient_not_found: as(404, 'recipient_not_found'),
  transfer_already_completed: as(409, 'transfer_already_completed'),
  unsupported_asset_chain: as(400, 'unsupported_asset_chain'),
  daily_limit_exceeded: as(400, 'daily_limit_exceeded'),
  duplicate_reference: as(409, 'duplicate_reference'),
  otp_required: as(400, 'otp_required'),
  invalid_session_state: as(400, 'invalid_session_state'),
  rpc_failed: as(503, 'provider_unavailable'),
  relayer_unavailable: as(503, 'provider_unavailable'),
  facilitator_unreachable: as(503, 'provider_unavailable'),
  pay_to_not_allowed: as(400, 'pay_to_not_allowed'),
  settlement_failed: as(400, 'settlement_failed'),
  settlement_unverified: as(502, 'settlement_unverified'),
  invalid_payment: as(400, 'invalid_payment'),
  internal_error: as(500, 'internal_error'),
}

/** One field-level problem in a `validation_error` (`field` is a dotted path such as `query.size`). */
export type FieldIssue = { field: string; message: string; code: string }
