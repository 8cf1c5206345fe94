import type { SettleResponse } from '@tollgate/core'
import type { Logger } from './logger.js'

/** Longest message an x402 answer carries from a scheme (`errorMessage`, `invalidMessage`). */
export const maxPublicMessageLength = 200

/**
 * The part of a scheme's message fit for an HTTP answer: its first line, every URL replaced by
 * `<url>` (an RPC URL holds the provider's key in its path or query), at most
 * {@link maxPublicMessageLength} characters. Upstream errors (viem's HTTP errors list the node URL,
 * the request body and details on later lines) keep their full text in the facilitator's log only.
 */
export function toPublicMessage(message: string): string {
  const line = (message.split(/\r?\n/, 1)[0] ?? '').replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi, '<url>')
  return line.length > maxPublicMessageLength ? `${line.slice(0, maxPublicMessageLength - 1)}…` : line
}

/** A scheme's settle answer as stored and sent: its message cut to the public part, the full text logged. */
export function toPublicSettleResponse(logger: Logger, key: string, result: SettleResponse): SettleResponse {
  if (result.success || result.errorMessage === undefined) {
    return result
  }
  const errorMessage = toPublicMessage(result.errorMessage)
  if (errorMessage !== result.errorMessage) {
    logger.warn(
      { key, errorReason: result.errorReason, detail: result.errorMessage },
      'settle failure detail',
    )
  }
  return { ...result, errorMessage }
}
