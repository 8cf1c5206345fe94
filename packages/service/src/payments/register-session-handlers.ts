import type { Deps } from '../deps.js'
import { expirePaymentSession, expireSessionJob } from './expire-payment-session.js'
import { createSessionTransferHandler } from './handle-session-transfer.js'

/** A job runner's registration function (the events helper's runner fits). */
export type RegisterJob = (kind: string, handler: (payload: Record<string, unknown>) => Promise<void>) => void

/**
 * Wires payment sessions into a composed service: the incoming-transfer consumer on `rails.incoming`
 * and, when a job runner is given, the expiry job. Returns the unsubscribe function.
 */
export function registerSessionHandlers(deps: Deps, options: { registerJob?: RegisterJob } = {}): () => void {
  options.registerJob?.(expireSessionJob, (payload) => expirePaymentSession(deps, payload))
  return deps.rails.incoming.subscribe('session', createSessionTransferHandler(deps))
}
