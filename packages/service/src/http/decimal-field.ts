import { z } from '@hono/zod-openapi'

// At most 20 digits before the point (10^20 of any currency is beyond any real amount, and the
// product with any rate and an 18-decimal scale stays far inside NUMERIC(78,0)) and 18 after (the
// largest asset scale). 20 + 1 + 18 = 39 characters at most (docs/service.md "Error codes").
const boundedDecimal = /^(0|[1-9]\d{0,19})(\.\d{1,18})?$/

/** Rule text of {@link toDecimalField}, for field descriptions and error messages. */
export const decimalFieldRule = 'a decimal string with at most 20 digits before the point and 18 after'

/**
 * A decimal string of a request (an amount, a rate): anything longer or malformed is a 400
 * `validation_error` naming the field, before a handler converts or stores it.
 */
export function toDecimalField(example = '100.50') {
  return z.string().max(39).regex(boundedDecimal, `must be ${decimalFieldRule}, such as "${example}"`)
}
