import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isAppError } from '@tollgate/core'
import { createFacilitator, createFacilitatorListener } from '@tollgate/facilitator'
import { buildFakeRequest, createFakeScheme } from '@tollgate/facilitator/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createProductionFacilitatorClient } from './create-production-facilitator-client.js'
import { parseProductionConfig } from './production-config.js'

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tollgate',
  TOLLGATE_MASTER_SEED: 'ab'.repeat(64),
  TOLLGATE_SECRET_KEYS: `k1:${'cd'.repeat(32)}`,
  FACILITATOR_TOKEN: 'facilitator-secret-token',
}

describe('createProductionFacilitatorClient', () => {
  const scheme = createFakeScheme()
  const facilitator = createFacilitator({ schemes: [scheme] })
  const server = createServer(createFacilitatorListener(facilitator, { authToken: env.FACILITATOR_TOKEN }))
  let url = ''
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    facilitator.close()
  })

  test("behavior: the token named by serve's facilitatorTokenEnv reaches a facilitator that requires it", async () => {
    const config = parseProductionConfig(
      {
        publicBaseUrl: 'https://pay.example.com',
        facilitatorUrl: url,
        facilitatorTokenEnv: 'FACILITATOR_TOKEN',
      },
      env,
    )
    const client = createProductionFacilitatorClient({
      url: config.facilitatorUrl ?? '',
      token: config.facilitatorToken,
    })
    expect((await client.getSupported()).kinds.length).toBeGreaterThan(0)
    expect(await client.verify(buildFakeRequest())).toMatchObject({ isValid: true })
    expect(await client.settle(buildFakeRequest())).toMatchObject({ success: true })
    expect(scheme.broadcasts).toHaveLength(1)
  })

  test('behavior: without the token the same facilitator refuses the call', async () => {
    const config = parseProductionConfig(
      { publicBaseUrl: 'https://pay.example.com', facilitatorUrl: url },
      env,
    )
    const client = createProductionFacilitatorClient({
      url: config.facilitatorUrl ?? '',
      token: config.facilitatorToken,
    })
    const error = await client
      .verify(buildFakeRequest({ payload: { nonce: '0x02' } }))
      .catch((e: unknown) => e)
    expect(isAppError(error)).toBe(true)
    expect(String((error as Error).message)).toMatch(/401/)
  })
})
