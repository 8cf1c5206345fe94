import {
  AppError,
  type FacilitatorClient,
  type FacilitatorRequest,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from '@tollgate/core'

/** A facilitator endpoint, as the reference HTTP facilitator client names them. */
export type FacilitatorOperation = 'verify' | 'settle' | 'supported'

/** Options of {@link createHttpFacilitatorClient}. */
export type HttpFacilitatorClientOptions = {
  /** Base URL (`https://x402.org/facilitator`, `http://127.0.0.1:4020/facilitator`). */
  url: string
  /** Extra headers (auth): the same for every call, or per operation. */
  headers?:
    | Record<string, string>
    | ((operation: FacilitatorOperation) => Record<string, string> | Promise<Record<string, string>>)
  /** Deadline per call in ms, body included (default 90 000, as the reference client). */
  timeoutMs?: number
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch
  /** Waits between `/supported` retries on 429 (tests make it instant). */
  sleep?: (ms: number) => Promise<void>
}

type Answer = { status: number; body: unknown; retryAfter: string | null }

const DEFAULT_TIMEOUT_MS = 90_000
const SUPPORTED_ATTEMPTS = 3
const MAX_RETRY_DELAY_MS = 30_000

/**
 * A {@link FacilitatorClient} over HTTP for any x402 facilitator (ours or another): `POST /verify`,
 * `POST /settle`, `GET /supported`. An invalid payment is data, also when the facilitator sends it
 * with a non-2xx status; a transport failure, a timeout or a malformed answer throws
 * `facilitator_unreachable` (the middleware answers 502 and charges nothing).
 */
export function createHttpFacilitatorClient(options: HttpFacilitatorClientOptions): FacilitatorClient {
  const base = options.url.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const doFetch = options.fetch ?? globalThis.fetch
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))

  const headersFor = async (operation: FacilitatorOperation): Promise<Record<string, string>> => {
    const extra = typeof options.headers === 'function' ? await options.headers(operation) : options.headers
    return { 'Content-Type': 'application/json', ...extra }
  }

  const call = async (operation: FacilitatorOperation, init: RequestInit): Promise<Answer> => {
    const url = `${base}/${operation}`
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const response = await doFetch(url, { ...init, headers: await headersFor(operation), signal })
      const text = await response.text()
      return {
        status: response.status,
        body: parseJson(text),
        retryAfter: response.headers.get('Retry-After'),
      }
    } catch (cause) {
      throw unreachable(
        url,
        undefined,
        signal.aborted
          ? `facilitator ${operation} timed out after ${timeoutMs} ms`
          : `facilitator ${operation} failed: ${describe(cause)}`,
        cause,
      )
    }
  }

  const post = async <T>(
    operation: 'verify' | 'settle',
    request: FacilitatorRequest,
    parse: (body: unknown) => T | undefined,
    isOutcome: (body: unknown) => boolean,
  ): Promise<T> => {
    const body = JSON.stringify({
      x402Version: request.paymentPayload.x402Version,
      paymentPayload: request.paymentPayload,
      paymentRequirements: request.paymentRequirements,
    })
    const answer = await call(operation, { method: 'POST', body })
    // The reference facilitator may send an invalid outcome with a 4xx/5xx: it is still an outcome.
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = parse(answer.body)
      if (parsed !== undefined) {
        return parsed
      }
    } else if (isOutcome(answer.body)) {
      const parsed = parse(answer.body)
      if (parsed !== undefined) {
        return parsed
      }
    }
    throw unreachable(
      `${base}/${operation}`,
      answer.status,
      `facilitator ${operation} answered ${answer.status} without a valid x402 response`,
    )
  }

  return {
    verify: (request) =>
      post(
        'verify',
        request,
        (body) => parseWith(VerifyResponse, body),
        (body) => hasKey(body, 'isValid'),
      ),
    settle: (request) =>
      post(
        'settle',
        request,
        (body) =>
          parseWith(SettleResponse, {
            transaction: '',
            network: networkOf(request),
            ...(isObject(body) ? body : {}),
          }),
        (body) => hasKey(body, 'success'),
      ),
    async getSupported() {
      const url = `${base}/supported`
      for (let attempt = 1; ; attempt++) {
        const answer = await call('supported', { method: 'GET' })
        if (answer.status >= 200 && answer.status < 300) {
          const parsed = parseWith(SupportedResponse, answer.body)
          if (parsed) {
            return parsed
          }
          throw unreachable(url, answer.status, 'facilitator /supported answered an invalid body')
        }
        if (answer.status !== 429 || attempt >= SUPPORTED_ATTEMPTS) {
          throw unreachable(url, answer.status, `facilitator /supported answered ${answer.status}`)
        }
        await sleep(retryDelay(answer.retryAfter, attempt))
      }
    },
  }
}

// Retry-After in seconds or as an HTTP date; else exponential backoff from 1 s, capped at 30 s.
function retryDelay(retryAfter: string | null, attempt: number): number {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter)
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now()
    if (Number.isFinite(ms)) {
      return Math.min(Math.max(ms, 0), MAX_RETRY_DELAY_MS)
    }
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS)
}

function parseWith<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  body: unknown,
): T | undefined {
  const parsed = schema.safeParse(body)
  return parsed.success ? parsed.data : undefined
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hasKey(body: unknown, key: string): boolean {
  return isObject(body) && key in body
}

function networkOf(request: FacilitatorRequest): string {
  return request.paymentPayload.x402Version === 2
    ? request.paymentPayload.accepted.network
    : request.paymentPayload.network
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause)
}

function unreachable(
  url: string,
  status: number | undefined,
  message: string,
  cause?: unknown,
): AppError<'facilitator_unreachable'> {
  return new AppError('facilitator_unreachable', {
    context: { url, ...(status !== undefined ? { status } : {}) },
    message,
    ...(cause !== undefined ? { cause } : {}),
  })
}
