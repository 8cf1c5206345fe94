/**
 * Webhook event types (docs/webhooks.md). Sessions use the spec's `payment.*`; payouts, deposits and
 * swaps use names of ours. `payment.received_after_expiry` reports funds that reached a closed
 * session's address (credited to suspense for the merchant to resolve).
 */
export const eventTypes = [
  'payment.completed',
  'payment.expired',
  'payment.partial',
  'payment.underpaid',
  'payment.failed',
  'payment.received_after_expiry',
  'payout.processing',
  'payout.success',
  'payout.failed',
  'deposit.pending',
  'deposit.completed',
  'deposit.failed',
  'swap.completed',
  'webhook.test',
] as const

/** One event type of {@link eventTypes}. */
export type EventType = (typeof eventTypes)[number]

// Keys issued before release 2.0.0 get the old session event names; `payment.underpaid` has no
// legacy name and is not sent to them (the spec's Versioning part).
const legacyNames: Partial<Record<EventType, string | null>> = {
  'payment.completed': 'session.completed',
  'payment.expired': 'session.expired',
  'payment.partial': 'session.partial',
  'payment.failed': 'session.failed',
  'payment.underpaid': null,
  'payment.received_after_expiry': 'session.received_after_expiry',
}

/** The wire name of `type` in a response format; null when that format has no such event. */
export function toWireEventType(type: EventType, format: 'current' | 'legacy'): string | null {
  if (format === 'current') {
    return type
  }
  const legacy = legacyNames[type]
  return legacy === undefined ? type : legacy
}

const currentNames = new Map<string, EventType>(
  Object.entries(legacyNames).flatMap(([current, legacy]) =>
    legacy ? [[legacy, current as EventType] as const] : [],
  ),
)

/** The current name of a wire event type (`session.completed` → `payment.completed`); others unchanged. */
export function toCurrentEventType(wireType: string): string {
  return currentNames.get(wireType) ?? wireType
}

/** Every event type name a webhook endpoint may subscribe to: current names, legacy names and `*`. */
export const subscribableEventTypes = [
  '*',
  ...eventTypes.filter((type) => type !== 'webhook.test'),
  ...Object.values(legacyNames).filter((name): name is string => typeof name === 'string'),
] as const
