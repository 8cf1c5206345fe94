import {
  AppError,
  type FacilitatorRequest,
  findJsonHazard,
  PaymentPayload,
  PaymentPayloadV1,
  PaymentRequirements,
  PaymentRequirementsV1,
} from '@tollgate/core'
import { z } from 'zod'
import './errors.js'

const RequestV2 = z.looseObject({
  x402Version: z.number().int().optional(),
  paymentPayload: PaymentPayload,
  paymentRequirements: PaymentRequirements,
})

const RequestV1 = z.looseObject({
  x402Version: z.number().int().optional(),
  paymentPayload: PaymentPayloadV1,
  paymentRequirements: PaymentRequirementsV1,
})

/**
 * Validates the body of `POST /verify` or `POST /settle` (`{ x402Version, paymentPayload,
 * paymentRequirements }`), picking the v1 or v2 shape by `paymentPayload.x402Version` as the
 * reference does. Throws `invalid_request` (with per-field `issues`) or `invalid_x402_version`;
 * nesting deeper than 64 levels, U+0000 and unpaired surrogates are refused anywhere in the body
 * (docs/input-limits.md), so nothing downstream (fingerprints, jsonb columns) meets them.
 */
export function parseFacilitatorRequest(body: unknown): FacilitatorRequest {
  if (!isRecord(body)) {
    throw invalid({ '': 'the body must be a JSON object' })
  }
  const hazard = findJsonHazard(body)
  if (hazard) {
    throw invalid({ [hazard.path]: hazard.message })
  }
  const payload = body.paymentPayload
  if (!isRecord(payload)) {
    throw invalid({ paymentPayload: 'required, an object' })
  }
  const version = payload.x402Version
  if (version !== 1 && version !== 2) {
    throw new AppError('invalid_x402_version', {
      context: { version },
      message: `paymentPayload.x402Version must be 1 or 2, got ${describeVersion(version)}`,
    })
  }
  const parsed = (version === 2 ? RequestV2 : RequestV1).safeParse(body)
  if (!parsed.success) {
    throw invalid(toIssues(parsed.error))
  }
  return parsed.data
}

function invalid(issues: Record<string, string>): AppError<'invalid_request'> {
  const first = Object.entries(issues)[0]
  const message = first ? `${first[0] || 'body'}: ${first[1]}` : 'invalid request'
  return new AppError('invalid_request', { context: { issues }, message })
}

function toIssues(error: z.ZodError): Record<string, string> {
  const issues: Record<string, string> = {}
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.')
    issues[path] ??= issue.message
  }
  return issues
}

// Echoes a short scalar back; anything else is named by its type, never serialized whole.
function describeVersion(version: unknown): string {
  if (typeof version === 'number' || typeof version === 'boolean') {
    return String(version)
  }
  if (typeof version === 'string') {
    return JSON.stringify(version.slice(0, 32))
  }
  return version === undefined
    ? 'nothing'
    : version === null
      ? 'null'
      : Array.isArray(version)
        ? 'an array'
        : `a ${typeof version}`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
