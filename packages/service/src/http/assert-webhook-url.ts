import { AppError } from '@tollgate/core'
import type { ServiceSettings } from '../settings.js'
import type { KeyEnvironment } from './app-env.js'

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Checks a per-object `webhookUrl` (session, payout, swap): HTTPS only; plain http to a loopback
 * host only for sandbox keys when `allowLoopbackWebhooks` is set. A violation is a 400
 * `validation_error` on `param` (private addresses are refused again at connect time).
 */
export function assertWebhookUrl(
  settings: Pick<ServiceSettings, 'allowLoopbackWebhooks'>,
  input: { environment: KeyEnvironment; url: string; param?: string },
): void {
  const url = URL.canParse(input.url) ? new URL(input.url) : null
  const loopbackAllowed =
    url?.protocol === 'http:' &&
    loopbackHosts.has(url.hostname) &&
    settings.allowLoopbackWebhooks &&
    input.environment === 'test'
  if (url?.protocol === 'https:' || loopbackAllowed) {
    if (url && url.username === '' && url.password === '') {
      return
    }
  }
  throw new AppError('validation_error', {
    message: 'webhookUrl must be an https URL without credentials',
    context: { param: input.param ?? 'webhookUrl' },
  })
}
