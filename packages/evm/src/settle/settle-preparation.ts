import type { PaymentPayload } from '@tollgate/core'

/**
 * A scheme's pre-broadcast verification, made by `prepareSettle` and handed back to `settle` as
 * `context.prepared`. It names the very payment object it was made for.
 */
export type PreparedSettle<T> = { readonly payment: PaymentPayload; readonly verification: T }

/** Runs the pre-broadcast checks for `payment` and ties their answer to it. */
export async function prepareSettle<T>(
  payment: PaymentPayload,
  run: () => Promise<T>,
): Promise<PreparedSettle<T>> {
  return { payment, verification: await run() }
}

/**
 * The prepared verification when it was made for this very `payment` object; `undefined` for a
 * value made for another payment (settle then verifies again).
 */
export function takePrepared<T>(
  prepared: PreparedSettle<T> | undefined,
  payment: PaymentPayload,
): T | undefined {
  return prepared?.payment === payment ? prepared.verification : undefined
}
