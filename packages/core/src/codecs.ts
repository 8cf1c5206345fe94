import type { z } from 'zod'
import { AppError } from './app-error.js'
import { findJsonHazard } from './json-hazards.js'
import { SettleResponse } from './schemas/facilitator-responses.js'
import { AnyPaymentPayload } from './schemas/payment-payload.js'
import { PaymentRequired, PaymentRequiredV1 } from './schemas/payment-requirements.js'

/** HTTP header names of the x402 transport (v2 first, then the v1 names). */
export const X402_HEADERS = {
  paymentRequired: 'PAYMENT-REQUIRED',
  paymentSignature: 'PAYMENT-SIGNATURE',
  paymentResponse: 'PAYMENT-RESPONSE',
  xPayment: 'X-PAYMENT',
  xPaymentResponse: 'X-PAYMENT-RESPONSE',
} as const

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Encodes a value as x402 header text: UTF-8 JSON in standard, padded base64. */
export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}

/**
 * Decodes x402 header text (standard base64 of UTF-8 JSON); throws `invalid_header` when it is
 * not, or when the JSON holds what no surface accepts (see `findJsonHazard`).
 */
export function decodeBase64Json(text: string, header = 'header'): unknown {
  const trimmed = text.trim()
  if (trimmed.length === 0 || trimmed.length % 4 !== 0 || !BASE64.test(trimmed)) {
    throw new AppError('invalid_header', { context: { header }, message: `${header} is not base64` })
  }
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(trimmed, 'base64').toString('utf8'))
  } catch (cause) {
    throw new AppError('invalid_header', {
      context: { header },
      cause,
      message: `${header} is not base64 JSON`,
    })
  }
  const hazard = findJsonHazard(value)
  if (hazard) {
    throw new AppError('invalid_header', {
      context: { header },
      message: `${header}: ${hazard.path || 'the value'} ${hazard.message}`,
    })
  }
  return value
}

function decodeWith<T extends z.ZodType>(schema: T, text: string, header: string): z.infer<T> {
  const parsed = schema.safeParse(decodeBase64Json(text, header))
  if (!parsed.success) {
    throw new AppError('invalid_header', {
      context: { header },
      cause: parsed.error,
      message: `${header} does not hold a valid x402 object`,
    })
  }
  return parsed.data
}

/** Decodes a `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) header into a payment payload. */
export function decodePaymentHeader(text: string): AnyPaymentPayload {
  return decodeWith(AnyPaymentPayload, text, 'payment header')
}

/** Decodes a `PAYMENT-REQUIRED` header (v2). */
export function decodePaymentRequiredHeader(text: string): PaymentRequired {
  return decodeWith(PaymentRequired, text, X402_HEADERS.paymentRequired)
}

/** Parses a v1 402 JSON body; returns `undefined` when the body is not a v1 PaymentRequired. */
export function parsePaymentRequiredV1Body(body: unknown): PaymentRequiredV1 | undefined {
  const parsed = PaymentRequiredV1.safeParse(body)
  return parsed.success ? parsed.data : undefined
}

/** Decodes a `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE` header into a settle response. */
export function decodePaymentResponseHeader(text: string): SettleResponse {
  return decodeWith(SettleResponse, text, X402_HEADERS.paymentResponse)
}
