import { z } from '@hono/zod-openapi'

const amountPattern = /^(0|[1-9]\d*)(\.\d+)?$/

/** A positive decimal-string amount with at most `scale` decimals (`"2500.50"` for NGN). */
export function toAmountSchema(scale: number) {
  return z
    .string()
    .regex(amountPattern, 'must be a decimal string such as "100.50"')
    .refine((value) => (value.split('.')[1] ?? '').length <= scale, `at most ${scale} decimals`)
    .refine((value) => !/^[0.]+$/.test(value), 'must be greater than zero')
    .describe('decimal string')
}
