import { toDecimalField } from '../http/decimal-field.js'

/** A positive decimal-string amount with at most `scale` decimals (`"2500.50"` for NGN). */
export function toAmountSchema(scale: number) {
  return toDecimalField()
    .refine((value) => (value.split('.')[1] ?? '').length <= scale, `at most ${scale} decimals`)
    .refine((value) => !/^[0.]+$/.test(value), 'must be greater than zero')
    .describe('decimal string')
}
