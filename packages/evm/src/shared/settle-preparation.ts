import type { PaymentPayload } from '@tollgate/core'

/**
 * Hands a scheme's pre-broadcast verification from `prepareSettle` to `settle`. The facilitator
 * passes the prepared value back opaquely; it is honoured only for the very payment object it
 * was made for, so a value from another payment or another scheme is ignored (settle verifies).
 */
export function createSettlePreparation<T>() {
  const prepared = new WeakMap<object, { payment: PaymentPayload; value: T }>()
  return {
    async prepare(payment: PaymentPayload, run: () => Promise<T>): Promise<object> {
      const token = {}
      prepared.set(token, { payment, value: await run() })
      return token
    },
    take(token: unknown, payment: PaymentPayload): T | undefined {
      if (typeof token !== 'object' || token === null) {
        return undefined
      }
      const entry = prepared.get(token)
      prepared.delete(token)
      return entry?.payment === payment ? entry.value : undefined
    },
  }
}
