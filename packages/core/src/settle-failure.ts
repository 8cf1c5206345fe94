import type { SettleResponse } from './schemas/facilitator-responses.js'

/**
 * A failed settlement as x402 reports it: the reason, the message and payer when known, and no
 * transaction unless one was broadcast (`settlement_pending` and on-chain failures carry it).
 */
export function createSettleFailure(
  network: string,
  errorReason: string,
  details: {
    payer?: string | undefined
    errorMessage?: string | undefined
    transaction?: string | undefined
  } = {},
): SettleResponse {
  return {
    success: false,
    errorReason,
    ...(details.errorMessage ? { errorMessage: details.errorMessage } : {}),
    transaction: details.transaction ?? '',
    network,
    ...(details.payer ? { payer: details.payer } : {}),
  }
}
