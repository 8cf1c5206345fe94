import type { SettleResponse } from './schemas/facilitator-responses.js'

/** A failed settlement as x402 reports it: no transaction, the reason, and the payer when known. */
export function createSettleFailure(
  network: string,
  errorReason: string,
  details: { payer?: string | undefined; errorMessage?: string | undefined } = {},
): SettleResponse {
  return {
    success: false,
    errorReason,
    ...(details.errorMessage ? { errorMessage: details.errorMessage } : {}),
    transaction: '',
    network,
    ...(details.payer ? { payer: details.payer } : {}),
  }
}
