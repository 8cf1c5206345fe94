import { AppError, hasUnstorableText } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import type { FieldIssue } from '../errors.js'
import type { AppEnv } from './app-env.js'

const MESSAGE = 'must not contain control characters or unpaired UTF-16 surrogates'

/**
 * Refuses a request whose path segments or query names and values, once decoded, hold a control
 * character (U+0000–U+001F, U+007F) or an unpaired surrogate: 400 `validation_error` naming the
 * field, before any route can take the value to SQL (see docs/input-limits.md).
 */
export function createUrlTextGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url)
    for (const segment of url.pathname.split('/')) {
      if (isUnfitText(decodeSegment(segment))) {
        throw refuse('path')
      }
    }
    for (const [name, value] of url.searchParams) {
      if (isUnfitText(name) || isUnfitText(value)) {
        throw refuse(`query.${isUnfitText(name) ? 'name' : name}`)
      }
    }
    await next()
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    // Not valid percent-encoded UTF-8: routes see the raw text, which holds no control character.
    return segment
  }
}

function isUnfitText(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) {
      return true
    }
  }
  return hasUnstorableText(text)
}

function refuse(field: string): AppError {
  const details: FieldIssue[] = [{ field, message: MESSAGE, code: 'invalid_string' }]
  return new AppError('validation_error', {
    message: `Invalid request: ${field}: ${MESSAGE}`,
    context: { details, param: field.replace(/^query\./, '') },
  })
}
