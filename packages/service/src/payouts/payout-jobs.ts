/** Job kind that hands a pending payout to its provider or re-queries a processing one (docs/payouts.md). */
export const reconcilePayoutJob = 'payouts.reconcile'

/** Payload of {@link reconcilePayoutJob}: the payout and how many re-queries came before. */
export type ReconcilePayoutPayload = { payoutId: string; attempt: number }

/** After this many re-queries a processing payout waits for its provider's callback (and an operator). */
export const maxReconcileAttempts = 12
