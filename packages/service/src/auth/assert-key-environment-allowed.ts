import { AppError } from '@tollgate/core'
import type { ServiceSettings } from '../settings.js'

/**
 * Refuses a `sk_test_` key with 401 `test_key_not_allowed` where the settings refuse test keys
 * (`tollgate serve`), before the key is looked up; the sandbox accepts both (docs/security.md).
 */
export function assertKeyEnvironmentAllowed(
  settings: Pick<ServiceSettings, 'allowTestKeys'>,
  key: string,
): void {
  if (!settings.allowTestKeys && key.startsWith('sk_test_')) {
    throw new AppError('test_key_not_allowed', {
      message: 'Sandbox keys (sk_test_) are refused by this server: use a live key (sk_live_)',
    })
  }
}
