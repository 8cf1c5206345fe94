// `npm run client:generate`: writes the merchant API's types into @tollgate/client from the
// OpenAPI document the service builds in process (no server, in-memory database).
import { writeFile } from 'node:fs/promises'
import { clientTypesPath, renderClientTypes } from './client-openapi-types.js'

const text = await renderClientTypes()
await writeFile(clientTypesPath, text)
console.log(`wrote ${clientTypesPath} (${text.split('\n').length} lines)`)
