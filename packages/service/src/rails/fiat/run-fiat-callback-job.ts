import { AppError, isAppError } from '@tollgate/core'
import type { Deps } from '../../deps.js'
import { fiatCallbackJobKind } from './sandbox-fiat-transfers.js'

/** A job handler as the runner calls it: the service's deps and the job's payload. */
export type FiatJobHandler = (deps: Deps, payload: Record<string, unknown>) => Promise<void>

/**
 * Delivers the simulated provider callback of `payload.transferId` with the outcome the sandbox
 * planned. A transfer whose callback was already fired (sandbox route) is left as it is.
 */
export async function runFiatCallbackJob(
  deps: Pick<Deps, 'rails'>,
  payload: Record<string, unknown>,
): Promise<void> {
  const transferId = payload.transferId
  const controls = deps.rails.sandboxControls
  if (typeof transferId !== 'string' || !controls) {
    throw new AppError('internal_error', {
      message: 'fiat callback job without a transfer id or sandbox rails',
    })
  }
  try {
    await controls.completeFiatTransfer({ id: transferId })
  } catch (error) {
    if (!isAppError(error, 'transfer_already_completed')) {
      throw error
    }
  }
}

/** Registers the fiat job handlers with a job runner (`runner.register(kind, handler)`). */
export function registerFiatJobs(runner: { register(kind: string, handler: FiatJobHandler): unknown }): void {
  runner.register(fiatCallbackJobKind, runFiatCallbackJob)
}
