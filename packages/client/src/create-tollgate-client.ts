import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './generated/openapi.js'

/** The typed merchant API client: openapi-fetch's `GET`, `POST`, `PATCH`, … over the API's paths. */
export type TollgateClient = Client<paths>

/** Options of {@link createTollgateClient}. */
export type TollgateClientOptions = {
  /**
   * The server's root, `http://127.0.0.1:4020` or `https://pay.example.com` (paths carry `/api/v1`);
   * a URL ending in `/api/v1` (the sandbox manifest's `apiUrl`) is accepted too.
   */
  baseUrl: string
  /** The merchant's `sk_test_…` or `sk_live_…` key, sent as `x-api-key` on every call. */
  apiKey: string
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>
}

/**
 * A typed client of the Tollgate merchant API, generated from its OpenAPI document: paths, bodies,
 * parameters and answers are checked by TypeScript.
 *
 * @example
 * const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:4020', apiKey })
 * const { data, error } = await client.GET('/api/v1/payments/reference/{reference}', {
 *   params: { path: { reference } },
 * })
 */
export function createTollgateClient(options: TollgateClientOptions): TollgateClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''),
    headers: { 'x-api-key': options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
}
