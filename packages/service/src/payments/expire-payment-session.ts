import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import { reconcileSession } from './reconcile-session.js'

/** The job kind that closes a session at its `expiresAt` (payload `{ sessionId }`). */
export const expireSessionJob = 'payments.expire'

/**
 * Job handler of {@link expireSessionJob}: closes a still-open session once it is due — expired when
 * nothing was confirmed, underpaid (or completed when underpayment is accepted) when something was.
 * A session with a transfer still confirming stays open; that transfer's confirmation or revert closes it.
 */
export async function expirePaymentSession(deps: Deps, payload: { sessionId?: unknown }): Promise<void> {
  if (typeof payload.sessionId !== 'string') {
    return
  }
  const sessionId = payload.sessionId
  await inTransaction(deps.db, async (trx) => {
    const row = await trx
      .selectFrom('payment_sessions')
      .selectAll()
      .where('id', '=', sessionId)
      .forUpdate()
      .executeTakeFirst()
    if (row?.state !== 'open' || row.expires_at > deps.clock.now()) {
      return
    }
    await reconcileSession(trx, deps, { row, trigger: 'expiry' })
  })
}
