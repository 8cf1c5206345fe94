import type { Deps } from '../../deps.js'

/** The job kind of a sweep: payload `{ transferId }`, key = the incoming transfer id. */
export const sweepJobKind = 'rails.sweep'

/**
 * Runs one sweep job: moves a confirmed incoming transfer from its deposit address to the chain's
 * treasury through `rails.crypto.sweep` (once per transfer, whatever the number of runs). A plain
 * `(deps, payload)` handler so the jobs runner can register it (docs/rails.md "Sweeps").
 */
export async function runSweepJob(deps: Pick<Deps, 'rails'>, payload: { transferId: string }): Promise<void> {
  await deps.rails.crypto.sweep(payload.transferId)
}
