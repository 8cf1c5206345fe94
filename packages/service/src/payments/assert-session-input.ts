import { AppError, isAppError, parseDecimalAmount } from '@tollgate/core'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ServiceSettings } from '../settings.js'
import { fiatScale } from './session-money.js'

/** A 400 `validation_error` on one body field, shaped like the schema validator's errors. */
export function toFieldError(field: string, message: string, location: 'body' | 'query' = 'body'): AppError {
  return new AppError('validation_error', {
    message: `Invalid request: ${location}.${field}: ${message}`,
    context: { param: field, details: [{ field: `${location}.${field}`, message, code: 'custom' }] },
  })
}

/** Parses a fiat amount (2 decimals, greater than zero) into minor units, or a 400 on `field`. */
export function parseFiatAmount(
  value: string,
  field = 'amount',
  location: 'body' | 'query' = 'body',
): bigint {
  try {
    return parseDecimalAmount(value, fiatScale)
  } catch (error) {
    if (isAppError(error, 'invalid_amount')) {
      throw toFieldError(field, error.message, location)
    }
    throw error
  }
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * Checks a callback or redirect URL: HTTPS only; plain http to a loopback host only in the sandbox
 * when `allowLoopbackWebhooks` is set (local development). Anything else is a 400 on `field`.
 */
export function assertSessionUrl(
  settings: Pick<ServiceSettings, 'allowLoopbackWebhooks'>,
  environment: KeyEnvironment,
  field: string,
  value: string | undefined,
): void {
  if (value === undefined) {
    return
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw toFieldError(field, 'must be an absolute URL')
  }
  if (url.protocol === 'https:') {
    return
  }
  const loopbackAllowed = settings.allowLoopbackWebhooks && environment === 'test'
  if (url.protocol === 'http:' && loopbackAllowed && loopbackHosts.has(url.hostname)) {
    return
  }
  throw toFieldError(field, 'must be an HTTPS URL')
}
