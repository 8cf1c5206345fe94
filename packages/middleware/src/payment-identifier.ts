import { type AnyPaymentPayload, toCanonicalJson } from '@tollgate/core'

/** The x402 extension key of client-chosen payment ids (docs/x402.md, 'Extensions we use'). */
export const PAYMENT_IDENTIFIER = 'payment-identifier'

const ID = /^[A-Za-z0-9_-]{16,128}$/
const DEFAULT_TTL_MS = 60 * 60 * 1000
const MAX_ENTRIES = 10_000

/** Options of the payment-identifier extension: `required` makes an id mandatory. */
export type PaymentIdentifierOptions = { required?: boolean; ttlMs?: number }

/** The extension as a server declares it in `PaymentRequired.extensions`. */
export function declarePaymentIdentifier(required: boolean): Record<string, unknown> {
  return {
    info: { required },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' },
      },
      required: ['required'],
    },
  }
}

/** The payment id a v2 payment carries: `undefined` when absent, `null` when malformed. */
export function readPaymentId(payment: AnyPaymentPayload): string | undefined | null {
  if (payment.x402Version !== 2) {
    return undefined
  }
  const extension = payment.extensions?.[PAYMENT_IDENTIFIER]
  const info =
    typeof extension === 'object' && extension !== null && 'info' in extension ? extension.info : undefined
  const id = typeof info === 'object' && info !== null && 'id' in info ? info.id : undefined
  if (id === undefined) {
    return undefined
  }
  return typeof id === 'string' && ID.test(id) ? id : null
}

/**
 * The fingerprint a payment id is bound to: the requirement the payment accepted and its signed
 * payload (not the facilitator's settlement fingerprint, which also covers the requirements).
 */
export function getPaymentIdFingerprint(payment: AnyPaymentPayload): string {
  return toCanonicalJson(payment.x402Version === 2 ? [payment.accepted, payment.payload] : [payment.payload])
}

type Stored = { status: number; statusText: string; headers: [string, string][]; body: Uint8Array }
type Entry = { fingerprint: string; at: number; response?: Stored }

/** Outcome of {@link PaymentIdentifierCache.begin}. */
export type PaymentIdState =
  | { kind: 'new' }
  | { kind: 'replay'; response: Response }
  | { kind: 'conflict' }
  | { kind: 'in_flight' }

/** Remembers the paid response of each payment id so a retry gets the same answer, not a new charge. */
export type PaymentIdentifierCache = {
  begin(id: string, fingerprint: string): PaymentIdState
  /** Stores a paid response (buffering its body) and returns an unread copy of it. */
  complete(id: string, response: Response): Promise<Response>
  /** Forgets an id whose request ended without a charge, so it can be used again. */
  abandon(id: string): void
}

/** An in-memory {@link PaymentIdentifierCache} (per process; entries live `ttlMs`, default 1 h). */
export function createPaymentIdentifierCache(
  options: { ttlMs?: number; now?: () => number } = {},
): PaymentIdentifierCache {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  const prune = () => {
    const cutoff = now() - ttlMs
    for (const [id, entry] of entries) {
      // Map order is insertion order: stop at the first entry still fresh.
      if (entry.at >= cutoff && entries.size <= MAX_ENTRIES) {
        break
      }
      entries.delete(id)
    }
  }
  return {
    begin(id, fingerprint) {
      prune()
      const entry = entries.get(id)
      if (!entry) {
        entries.set(id, { fingerprint, at: now() })
        return { kind: 'new' }
      }
      if (entry.fingerprint !== fingerprint) {
        return { kind: 'conflict' }
      }
      if (!entry.response) {
        return { kind: 'in_flight' }
      }
      const { status, statusText, headers, body } = entry.response
      return { kind: 'replay', response: new Response(body.slice(), { status, statusText, headers }) }
    },
    async complete(id, response) {
      const body = new Uint8Array(await response.arrayBuffer())
      const stored: Stored = {
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body,
      }
      const entry = entries.get(id)
      if (entry) {
        entry.response = stored
      }
      return new Response(body.slice(), {
        status: stored.status,
        statusText: stored.statusText,
        headers: stored.headers,
      })
    },
    abandon(id) {
      entries.delete(id)
    },
  }
}
