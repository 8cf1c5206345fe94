import { VALID_BEFORE_MARGIN_SECONDS } from '../constants.js'

/** Which end of an authorization's validity window fails: {@link checkTimeWindow}'s answer. */
export type TimeWindowFault = 'expired' | 'not_yet_valid' | 'too_long'

/** A scheme's reason and message for each {@link TimeWindowFault}. */
export type TimeWindowReasons = Record<TimeWindowFault, { reason: string; message?: string }>

/** What {@link checkTimeWindow} reads of the scheme's context: the clock and the allowed buffer. */
export type TimeWindowContext = { now: () => number; maxValidityBufferSeconds: bigint }

/**
 * The validity window both EVM schemes check (docs/x402.md, 'Where Tollgate is stricter'): the
 * authorization must stay valid at least 6 s more (`expired`), be valid now (`not_yet_valid`), and
 * end no later than `maxTimeoutSeconds` plus the buffer from now (`too_long`). Times in seconds;
 * the scheme's reason and message for the first fault, `undefined` when the window is fine.
 */
export function checkTimeWindow(
  window: { validAfter: bigint; validBefore: bigint },
  context: TimeWindowContext,
  requirements: { maxTimeoutSeconds: number },
  reasons: TimeWindowReasons,
): { reason: string; message?: string } | undefined {
  const now = BigInt(Math.floor(context.now() / 1000))
  if (window.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) {
    return reasons.expired
  }
  if (window.validAfter > now) {
    return reasons.not_yet_valid
  }
  if (window.validBefore > now + BigInt(requirements.maxTimeoutSeconds) + context.maxValidityBufferSeconds) {
    return reasons.too_long
  }
  return undefined
}
