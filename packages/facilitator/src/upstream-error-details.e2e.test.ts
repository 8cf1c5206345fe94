import { createServer } from 'node:net'
import { createSettleFailure, REASONS, type SchemeFacilitator } from '@tollgate/core'
import { createPublicClient, http } from 'viem'
import { expect, test } from 'vitest'
import { createFacilitator } from './create-facilitator.js'
import { createFacilitatorApp } from './create-facilitator-app.js'
import type { Logger } from './logger.js'
import { buildFakeRequest, createFakeScheme } from './testing/create-fake-scheme.js'

// docs/security.md "Operational endpoints and error details": an RPC provider's key (in its URL)
// never reaches an answer; the full upstream text stays in the facilitator's log.

const secret = 'SECRETKEY123'

async function deadRpcError(): Promise<Error> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const client = createPublicClient({
    transport: http(`http://127.0.0.1:${port}/v2/${secret}`, { retryCount: 0 }),
  })
  return client.getBlockNumber().then(
    () => {
      throw new TypeError('the dead port answered')
    },
    (error: Error) => error,
  )
}

test('behavior: a settle or verify failing on an RPC URL with a key answers without the key; the log keeps it', async () => {
  const error = await deadRpcError()
  expect(error.message).toContain(secret)
  const logged: string[] = []
  const record = (fields: object, message?: string) => logged.push(JSON.stringify({ ...fields, message }))
  const logger: Logger = { debug: record, info: record, warn: record, error: record }
  const fake = createFakeScheme()
  // As the EVM scheme answers a send that failed on its node (settle-exact), and one that threw.
  const returning: SchemeFacilitator = {
    ...fake,
    verify: async () => ({
      isValid: false,
      invalidReason: REASONS.unexpectedVerifyError,
      invalidMessage: error.message,
    }),
    settle: async (_payment, requirements) =>
      createSettleFailure(requirements.network, REASONS.unexpectedSettleError, {
        errorMessage: error.message,
      }),
  }
  const throwing: SchemeFacilitator = {
    ...fake,
    settle: async () => {
      throw error
    },
  }
  for (const scheme of [returning, throwing]) {
    const app = createFacilitatorApp(createFacilitator({ schemes: [scheme], logger }))
    for (const path of ['/settle', '/verify', '/settle']) {
      const res = await app.request(path, {
        method: 'POST',
        body: JSON.stringify(buildFakeRequest()),
        headers: { 'content-type': 'application/json' },
      })
      const body = await res.text()
      expect(res.status).toBeLessThan(500)
      expect(body).not.toContain(secret)
      expect(body).not.toContain('127.0.0.1')
    }
  }
  expect(logged.join('\n')).toContain(secret)
})
