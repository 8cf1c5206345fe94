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
    if (isPlainAscii(c.req.url)) {
      // Printable ASCII without `%`: nothing decodes to a control character or a surrogate, so
      // there is nothing to refuse (and no URL to parse per request, issue #15).
      await next()
      return
    }
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

// Every character printable ASCII (U+0020–U+007E) and none of them `%`.
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code > 0x7e || code === 0x25) {
      return false
    }
  }
  return true
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
