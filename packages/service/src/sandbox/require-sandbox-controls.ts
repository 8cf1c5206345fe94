import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { SandboxControls } from '../rails/types.js'

/** The rails' sandbox controls; rails without them (production providers) answer the route with 404. */
export function requireSandboxControls(deps: Pick<Deps, 'rails'>): SandboxControls {
  const controls = deps.rails.sandboxControls
  if (!controls) {
    throw new AppError('not_found', { message: 'These rails have no sandbox provider' })
  }
  return controls
}
