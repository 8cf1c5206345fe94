import {
  createSolanaRpcFromTransport,
  isSolanaError,
  type Rpc,
  type RpcTransport,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  SolanaError,
  type SolanaRpcApi,
} from '@solana/kit'
import { createBatchQueue, createHttpPost, type HttpPostOptions } from '@tollgate/core/http-post'

/** Options of {@link createSolanaRpcClient}. */
export type SolanaRpcClientOptions = {
  /** Extra HTTP headers (e.g. an API key header of an RPC provider). */
  headers?: Record<string, string>
  /** Most JSON-RPC calls sent in one batch request (default 32; 1 turns batching off). */
  maxBatchRequests?: number
  /** Largest batch body in bytes (default 40,000; Agave refuses bodies over 50 KiB by default). */
  maxBatchBytes?: number
  /** Most HTTP requests out at once (default 4); calls beyond wait and join the next batch. */
  maxConcurrentRequests?: number
  /** Per HTTP request timeout in ms (default 30,000). */
  timeoutMs?: number
  /** TLS options for https URLs: a private CA, a client certificate. */
  tls?: HttpPostOptions['tls']
}

type Pending = {
  body: string
  id: unknown
  resolve(response: unknown): void
  reject(error: unknown): void
}

/**
 * Creates a kit `Rpc` for a Solana JSON-RPC endpoint whose transport batches: calls issued in the
 * same event-loop turn go out as one JSON-RPC 2.0 batch request (standard, served by Agave and
 * the usual providers) over keep-alive HTTP. Under concurrency this divides the per-request HTTP
 * cost on both ends by the batch size; a lone call goes out as a plain request.
 * Integers of 16 digits or more in responses are parsed as `bigint`, as kit's own transport does.
 */
export function createSolanaRpcClient(url: string, options: SolanaRpcClientOptions = {}): Rpc<SolanaRpcApi> {
  return createSolanaRpcFromTransport(createBatchingTransport(url, options))
}

function createBatchingTransport(url: string, options: SolanaRpcClientOptions): RpcTransport {
  const post = createPoster(url, options)
  // Calls beyond maxConcurrentRequests wait for a free slot and join the next batch, so batches
  // grow with load instead of requests. Stops batching for good when the node turns batches down.
  const queue = createBatchQueue<Pending>({
    maxItems: options.maxBatchRequests ?? 32,
    maxBytes: options.maxBatchBytes ?? 40_000,
    maxInFlight: options.maxConcurrentRequests ?? 4,
    sizeOf: (call) => call.body.length,
    send: (calls) => send(calls),
  })

  const send = async (calls: Pending[]): Promise<void> => {
    const single = calls.length === 1
    try {
      let parsed: unknown
      try {
        parsed = await post(single ? (calls[0] as Pending).body : `[${calls.map((c) => c.body).join(',')}]`)
      } catch (error) {
        if (single || !isBatchRefusal(error)) {
          throw error
        }
      }
      // A node that does not serve batches answers one error object, or an HTTP client error:
      // resend each call alone (they are all safe to repeat) and stop batching.
      if (!single && !Array.isArray(parsed)) {
        queue.stopBatching()
        await Promise.all(calls.map((call) => send([call])))
        return
      }
      const responses = single ? [parsed] : (parsed as unknown[])
      const byId = new Map(responses.map((r) => [(r as { id?: unknown })?.id, r]))
      for (const call of calls) {
        const response = single ? parsed : byId.get(call.id)
        if (response === undefined) {
          call.reject(
            new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, {
              headers: new Headers(),
              message: 'no response for this call in the batch',
              statusCode: 200,
            }),
          )
        } else {
          call.resolve(response)
        }
      }
    } catch (error) {
      for (const call of calls) {
        call.reject(error)
      }
    }
  }

  return (<TResponse>({ payload, signal }: { payload: unknown; signal?: AbortSignal }) =>
    new Promise<TResponse>((resolve, reject) => {
      signal?.throwIfAborted()
      const call: Pending = {
        body: stringifyWithBigInts(payload),
        id: (payload as { id?: unknown }).id,
        resolve: resolve as (response: unknown) => void,
        reject,
      }
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      queue.push(call)
    })) as RpcTransport
}

// HTTP 4xx to a batch request, except timeouts and rate limits (which a single call would get too).
function isBatchRefusal(error: unknown): boolean {
  if (!isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    return false
  }
  const status = error.context.statusCode
  return status >= 400 && status < 500 && status !== 408 && status !== 429
}

function createPoster(url: string, options: SolanaRpcClientOptions): (body: string) => Promise<unknown> {
  const post = createHttpPost(url, {
    headers: options.headers,
    timeoutMs: options.timeoutMs ?? 30_000,
    tls: options.tls,
  })
  return async (body) => {
    const response = await post(body)
    if (response.status < 200 || response.status >= 300) {
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, {
        headers: new Headers(response.headers),
        message: response.statusText || response.text.slice(0, 200),
        statusCode: response.status,
      })
    }
    return parseWithBigInts(response.text)
  }
}

const BIGINT_MARK = '__tollgate_bigint__'

function stringifyWithBigInts(value: unknown): string {
  const json = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v))
  return json.includes(BIGINT_MARK) ? json.replace(new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g'), '$1') : json
}

// A number of 16+ digits where JSON puts values (after `:`, `,` or `[`). Digit runs inside strings
// (program ids like ComputeBudget111…, which every simulation log names) rarely follow one.
const LONG_INTEGER_VALUE = /[:,[]\s*-?\d{16}/

/**
 * JSON.parse, except that integers too long for a double (16+ digits) become `bigint`. The quote-
 * aware rewrite only runs when the text may hold such a number, which most responses do not.
 */
function parseWithBigInts(text: string): unknown {
  if (!LONG_INTEGER_VALUE.test(text)) {
    return JSON.parse(text)
  }
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string
    if (inString) {
      out += ch
      if (ch === '\\') {
        out += text[++i] ?? ''
      } else if (ch === '"') {
        inString = false
      }
      continue
    }
    if (ch === '"') {
      inString = true
      out += ch
      continue
    }
    const match = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(text.slice(i, i + 40))
    if (match && (ch === '-' || (ch >= '0' && ch <= '9'))) {
      const literal = match[0]
      const isLongInteger = /^-?\d{16,}$/.test(literal)
      out += isLongInteger ? `"${BIGINT_MARK}${literal}"` : literal
      i += literal.length - 1
      continue
    }
    out += ch
  }
  return JSON.parse(out, (_key, v) =>
    typeof v === 'string' && v.startsWith(BIGINT_MARK) ? BigInt(v.slice(BIGINT_MARK.length)) : v,
  )
}
