import type { OpenAPIHonoOptions, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { FieldIssue } from '../errors.js'
import type { AppEnv } from './app-env.js'

/** Turns a zod failure on a request part (`query`, `json`, `param`, ...) into a 400 `validation_error`. */
export function toValidationError(error: z.ZodError, target: string): AppError {
  const location = target === 'json' ? 'body' : target
  const details: FieldIssue[] = error.issues.map((issue) => ({
    field: [location, ...issue.path.map(String)].join('.'),
    message: issue.message,
    code: issue.code,
  }))
  const first = error.issues[0]
  const param = first && first.path.length > 0 ? first.path.map(String).join('.') : undefined
  const summary = details.map((d) => `${d.field}: ${d.message}`).join('; ')
  return new AppError('validation_error', {
    message: `Invalid request: ${summary}`,
    context: { details, ...(param === undefined ? {} : { param }) },
  })
}

/** Default validator hook of every route: zod failures throw a `validation_error` to `app.onError`. */
export const validationHook: NonNullable<OpenAPIHonoOptions<AppEnv>['defaultHook']> = (result) => {
  if (!result.success) {
    throw toValidationError(result.error, result.target)
  }
}
