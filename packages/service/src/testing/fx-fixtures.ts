import { AppError } from '@tollgate/core'
import type { Rails } from '../rails/types.js'

/**
 * Mid rates against USD with no house spread, so tests of FX consumers (swaps, deposits) can state
 * exact numbers: USDT/NGN 1500, USDT/KES 129, ETH/USDT 3000, USDT/USDC 1.
 */
export const testFxRates = [
  { from: 'USD', to: 'USDT', rate: '1', spreadBps: 0 },
  { from: 'USD', to: 'USDC', rate: '1', spreadBps: 0 },
  { from: 'USD', to: 'NGN', rate: '1500', spreadBps: 0 },
  { from: 'USD', to: 'KES', rate: '129', spreadBps: 0 },
  { from: 'USD', to: 'GHS', rate: '15.4', spreadBps: 0 },
  { from: 'ETH', to: 'USD', rate: '3000', spreadBps: 0 },
]

/** Sets {@link testFxRates} on the sandbox FX rail (`rails.sandboxControls.setFxRates`). */
export async function setTestFxRates(rails: Pick<Rails, 'sandboxControls'>): Promise<void> {
  if (!rails.sandboxControls) {
    throw new AppError('internal_error', { message: 'these rails have no sandbox controls' })
  }
  await rails.sandboxControls.setFxRates(testFxRates)
}
