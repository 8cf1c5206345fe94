/**
 * Typed client of the Tollgate merchant API (`@tollgate/client`): types generated from the
 * service's OpenAPI document with openapi-typescript, calls through openapi-fetch.
 *
 * @example
 * const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:4020', apiKey: 'sk_test_…' })
 * const { data } = await client.POST('/api/v1/payments', { body: { title: 'Order 1', amount: '10.00', currency: 'USD' } })
 *
 * @module
 */
export type { TollgateClient, TollgateClientOptions } from './create-tollgate-client.js'
export { createTollgateClient } from './create-tollgate-client.js'
export type { components, operations, paths } from './generated/openapi.js'
