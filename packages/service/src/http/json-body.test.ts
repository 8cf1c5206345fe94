import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { afterEach, describe, expect, test, vi } from 'vitest'
import type { AppEnv } from './app-env.js'
import { handleError } from './handle-error.js'
import { createJsonBodyParser } from './json-body.js'
import { validationHook } from './validation-hook.js'

const echo = createRoute({
  method: 'post',
  path: '/echo',
  request: {
    body: { required: true, content: { 'application/json': { schema: z.object({ a: z.number() }) } } },
  },
  responses: { 200: { description: 'The body' } },
})

function createTestApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  app.onError(handleError)
  app.use('*', createJsonBodyParser({ limitBytes: 1024 }))
  app.openapi(echo, (c) => c.json(c.req.valid('json'), 200))
  return app
}

const post = (body: string) =>
  createTestApp().request('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('createJsonBodyParser', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  test('the json validator gets the value the parser parsed: the body is parsed once', async () => {
    const parse = vi.spyOn(JSON, 'parse')
    const body = '{"a":1}'
    const res = await post(body)
    expect(res.status).toBe(200)
    expect(parse.mock.calls.filter(([text]) => text === body)).toHaveLength(1)
    expect(await res.text()).toBe(body)
  })

  test('malformed JSON is still a 400 invalid_json, and a value the schema refuses still a 400', async () => {
    const malformed = await post('{"a":')
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } })
    const refused = await post('{"a":"x"}')
    expect(refused.status).toBe(400)
  })
})
