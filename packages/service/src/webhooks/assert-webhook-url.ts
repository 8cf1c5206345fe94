import { isIP } from 'node:net'
import { AppError } from '@tollgate/core'
import { classifyAddress } from '../http/address-policy.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ServiceSettings } from '../settings.js'

/** Whether deliveries in `environment` may go to loopback (sandbox keys, when the settings allow it). */
export function allowsLoopbackWebhooks(settings: ServiceSettings, environment: KeyEnvironment): boolean {
  return settings.allowLoopbackWebhooks && environment === 'test'
}

function isLoopbackHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    (isIP(host) !== 0 && classifyAddress(host) === 'loopback')
  )
}

/**
 * Checks a webhook (or callback) URL a merchant gives, before it is stored: HTTPS, at most 2,048
 * characters, no credentials, no internal IP literal; plain http and loopback only for sandbox keys
 * when the settings allow them. Throws a 400 `validation_error` naming `field` (`body.url`,
 * `body.webhookUrl`). Names are checked again at connect time (docs/webhooks.md "Outbound HTTP").
 */
export function assertWebhookUrl(
  settings: ServiceSettings,
  environment: KeyEnvironment,
  url: string,
  field = 'body.url',
): void {
  const fail = (code: string, message: string): never => {
    throw new AppError('validation_error', {
      message: `Invalid request: ${field}: ${message}`,
      context: { param: field.replace(/^body\./, ''), details: [{ field, message, code }] },
    })
  }
  const parsed = URL.canParse(url) ? new URL(url) : fail('invalid_url', 'must be an absolute https URL')
  if (url.length > 2_048) {
    fail('invalid_url', 'must be at most 2048 characters')
  }
  if (parsed.username || parsed.password) {
    fail('invalid_url', 'must not contain credentials')
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  const loopbackAllowed = allowsLoopbackWebhooks(settings, environment)
  if (parsed.protocol === 'http:') {
    if (!(loopbackAllowed && isLoopbackHost(host))) {
      fail(
        'https_required',
        loopbackAllowed ? 'must use https (plain http only to localhost)' : 'must use https',
      )
    }
  } else if (parsed.protocol !== 'https:') {
    fail('https_required', 'must use https')
  }
  if (isLoopbackHost(host) && !loopbackAllowed) {
    fail('address_not_allowed', 'must not point at this machine')
  }
  if (isIP(host) !== 0) {
    const refused = classifyAddress(host)
    if (refused !== null && refused !== 'loopback') {
      fail('address_not_allowed', `must not point at a ${refused.replace('_', '-')} address`)
    }
  }
}
