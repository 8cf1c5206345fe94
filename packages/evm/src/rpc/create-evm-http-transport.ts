import {
  createBatchQueue,
  createHttpPost,
  type HttpPostOptions,
  HttpPostTimeoutError,
  type HttpResponse,
} from '@tollgate/core/http-post'
import {
  createTransport,
  type EIP1193RequestFn,
  HttpRequestError,
  RpcRequestError,
  stringify,
  TimeoutError,
  type Transport,
} from 'viem'

/** Options of {@link createEvmHttpTransport}. */
export type EvmHttpTransportOptions = {
  /** Extra HTTP headers (e.g. an API key header of an RPC provider). */
  headers?: Record<string, string>
  /** Per HTTP request timeout in ms (default 10,000, viem's). viem's retries resend a timed-out call, as with `http`. */
  timeoutMs?: number
  /** viem's retries of failed calls (default 3, viem's; rate limits, 5xx, unknown errors). */
  retryCount?: number
  /** Base delay of viem's exponential backoff between retries in ms (default 150, viem's). */
  retryDelay?: number
  /** Most JSON-RPC calls in one batch request (default 32; 1 turns batching off). */
  maxBatchRequests?: number
  /** Largest batch body in bytes (default 100,000). */
  maxBatchBytes?: number
  /** Keep-alive connections to the node (default 8). */
  connections?: number
  /** TLS options for https URLs: a private CA, a client certificate. */
  tls?: HttpPostOptions['tls']
}

type RpcBody = { jsonrpc: '2.0'; id: number; method: string; params?: unknown }
type RpcAnswer = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } }

type Pending = {
  body: RpcBody
  json: string
  resolve(result: unknown): void
  reject(error: unknown): void
}

/**
 * A viem transport for an EVM JSON-RPC endpoint over undici (@tollgate/core/http-post: a keep-alive
 * `Pool` driven through its dispatcher API, a request resent once when a reused socket fails before
 * any answer) instead of `fetch`, whose Request/Response/stream objects per call were about a tenth
 * of the facilitator's CPU per verify. Calls issued in the same event-loop turn go out as one
 * JSON-RPC batch, as viem's `http(url, { batch: { wait: 0 } })` does; a node that refuses batches
 * gets the calls one by one from then on. Errors are viem's own (`HttpRequestError` with the
 * status, `RpcRequestError` with the node's code and message, `TimeoutError`) and go through
 * viem's retry and error mapping (`createTransport`), so callers match them as they did with `http`.
 * Basic-auth credentials in the URL become an `Authorization` header.
 */
export function createEvmHttpTransport(
  url: string,
  options: EvmHttpTransportOptions = {},
): Transport<'http'> {
  const timeoutMs = options.timeoutMs ?? 10_000
  const post = createHttpPost(url, {
    headers: options.headers,
    timeoutMs,
    tls: options.tls,
    ...(options.connections ? { connections: options.connections } : {}),
  })
  // Errors name the URL without its credentials.
  const shownUrl = withoutCredentials(url)
  const send = createBatchingSender(post, shownUrl, options)
  let nextId = 0
  return () =>
    createTransport(
      {
        key: 'http',
        name: 'HTTP JSON-RPC (undici)',
        type: 'http',
        retryCount: options.retryCount ?? 3,
        retryDelay: options.retryDelay ?? 150,
        timeout: timeoutMs,
        request: (({ method, params }: { method: string; params?: unknown }) => {
          nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER
          return send({ jsonrpc: '2.0', id: nextId, method, params })
        }) as EIP1193RequestFn,
      },
      { url: shownUrl },
    )
}

function createBatchingSender(
  post: (body: string) => Promise<HttpResponse>,
  url: string,
  options: EvmHttpTransportOptions,
): (body: RpcBody) => Promise<unknown> {
  // Stops batching for good when the node turns batches down (some providers' plans do).
  const queue = createBatchQueue<Pending>({
    maxItems: options.maxBatchRequests ?? 32,
    maxBytes: options.maxBatchBytes ?? 100_000,
    sizeOf: (call) => call.json.length,
    send: (calls) => sendCalls(calls),
  })

  const sendCalls = async (calls: Pending[]): Promise<void> => {
    const single = calls.length === 1 ? (calls[0] as Pending) : undefined
    const body = single ? single.body : calls.map((c) => c.body)
    try {
      const answer = await postJson(post, single ? single.json : `[${calls.map((c) => c.json).join(',')}]`)
      if (single) {
        answerCall(single, answer.data, answer, url)
        return
      }
      const { status } = answer.response
      // A node that does not serve batches answers one object or an HTTP client error: resend each
      // call alone (the relayer's and verifier's calls are all safe to repeat) and stop batching.
      if (isBatchRefusal(status) || (isOk(status) && !Array.isArray(answer.data))) {
        queue.stopBatching()
        await Promise.all(calls.map((call) => sendCalls([call])))
        return
      }
      if (!isOk(status)) {
        // A server error, a timeout or rate limit of the whole batch: every call fails with it
        // (geth wraps a whole-batch error in a one-element array).
        const whole = Array.isArray(answer.data) && answer.data.length === 1 ? answer.data[0] : answer.data
        for (const call of calls) {
          answerCall(call, whole, answer, url)
        }
        return
      }
      const byId = new Map((answer.data as RpcAnswer[]).map((r) => [r?.id, r]))
      for (const call of calls) {
        answerCall(call, byId.get(call.body.id), answer, url)
      }
    } catch (error) {
      const failure = toTransportError(error, body, url)
      for (const call of calls) {
        call.reject(failure)
      }
    }
  }

  return (body) =>
    new Promise((resolve, reject) => {
      queue.push({ body, json: stringify(body), resolve, reject })
    })
}

type JsonAnswer = { response: HttpResponse; data: unknown }

/** POSTs `json` and parses the answer; a non-JSON body of a failed request becomes `{ error: text }`. */
async function postJson(post: (body: string) => Promise<HttpResponse>, json: string): Promise<JsonAnswer> {
  const response = await post(json)
  try {
    return { response, data: JSON.parse(response.text || '{}') }
  } catch (error) {
    if (isOk(response.status)) {
      throw error
    }
    return { response, data: { error: response.text } }
  }
}

/** Resolves or rejects one call from its answer, with the errors viem's `http` transport raises. */
function answerCall(call: Pending, data: unknown, { response }: JsonAnswer, url: string): void {
  const answer = data as RpcAnswer | undefined
  const status = response.status
  if (isRpcError(answer)) {
    call.reject(
      new RpcRequestError({
        body: call.body,
        error: answer.error,
        ...(isOk(status) ? {} : { headers: new Headers(response.headers), status }),
        url,
      }),
    )
  } else if (!isOk(status)) {
    call.reject(
      new HttpRequestError({
        body: call.body,
        details: stringify(answer?.error) || response.statusText,
        headers: new Headers(response.headers),
        status,
        url,
      }),
    )
  } else if (answer === undefined || answer === null || typeof answer !== 'object') {
    call.reject(new HttpRequestError({ body: call.body, details: 'no response for this call', url }))
  } else {
    call.resolve(answer.result)
  }
}

function toTransportError(error: unknown, body: RpcBody | RpcBody[], url: string): Error {
  if (error instanceof HttpPostTimeoutError) {
    return new TimeoutError({ body, url })
  }
  return new HttpRequestError({ body, cause: error as Error, url })
}

function isRpcError(answer: unknown): answer is Required<Pick<RpcAnswer, 'error'>> {
  const error = (answer as RpcAnswer | undefined)?.error
  return typeof error?.code === 'number' && typeof error.message === 'string'
}

const isOk = (status: number) => status >= 200 && status < 300

// HTTP 4xx to a batch request, except timeouts and rate limits (which a single call would get too).
const isBatchRefusal = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429

function withoutCredentials(url: string): string {
  const parsed = new URL(url)
  parsed.username = ''
  parsed.password = ''
  return parsed.toString()
}
