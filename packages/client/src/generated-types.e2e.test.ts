import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { expect, test } from 'vitest'
import { clientTypesPath, renderClientTypes } from '../../../scripts/client-openapi-types.js'

test('behavior: the committed generated types match the OpenAPI document the service builds (else run npm run client:generate)', async () => {
  const committed = await readFile(resolve(import.meta.dirname, '../../..', clientTypesPath), 'utf8')
  const fresh = await renderClientTypes()
  expect(
    committed === fresh,
    'packages/client/src/generated/openapi.ts is stale: run npm run client:generate',
  ).toBe(true)
  expect(fresh).toContain('"/api/v1/payments/reference/{reference}"')
})
