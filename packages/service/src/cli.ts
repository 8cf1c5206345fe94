import { parseArgs } from 'node:util'
import { createApiKey } from './auth/create-api-key.js'
import { listApiKeys } from './auth/list-api-keys.js'
import { revokeApiKey } from './auth/revoke-api-key.js'
import { openDatabase } from './db/open-database.js'
import { createIdGenerator, systemClock } from './deps.js'
import { parseServiceEnv } from './env.js'
import { isServiceError } from './errors.js'
import { createMerchant } from './merchants/create-merchant.js'
import { listMerchants } from './merchants/list-merchants.js'

const usage = `usage: tollgate <command>
  merchants create --name <name>
  merchants list
  keys create --merchant <mer_…> --env test|live [--format current|legacy] [--label <text>]
  keys list [--merchant <mer_…>]
  keys revoke <key_…>
Database: DATABASE_URL, else the PGlite directory TOLLGATE_DATA_DIR (default .tollgate/data).
With PGlite, stop the sandbox first: one process at a time may open the data directory.`

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      merchant: { type: 'string' },
      env: { type: 'string' },
      format: { type: 'string' },
      label: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [group, action, target] = positionals
  if (values.help || !group || !action) {
    console.log(usage)
    return values.help ? 0 : 1
  }
  const env = parseServiceEnv(process.env)
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR })
  const deps = { db: database.db, clock: systemClock, ids: createIdGenerator() }
  try {
    const command = `${group} ${action}`
    if (command === 'merchants create') {
      if (!values.name) {
        throw new UsageError('--name is required')
      }
      print(await createMerchant(deps, { name: values.name }))
    } else if (command === 'merchants list') {
      print(await listMerchants(deps))
    } else if (command === 'keys create') {
      const environment = values.env
      const format = values.format ?? 'current'
      if (!values.merchant || (environment !== 'test' && environment !== 'live')) {
        throw new UsageError('--merchant and --env test|live are required')
      }
      if (format !== 'current' && format !== 'legacy') {
        throw new UsageError('--format must be current or legacy')
      }
      const created = await createApiKey(deps, {
        merchantId: values.merchant,
        environment,
        format,
        ...(values.label === undefined ? {} : { label: values.label }),
      })
      print(created)
      console.error('Store the key now: it is shown only once.')
    } else if (command === 'keys list') {
      print(await listApiKeys(deps, values.merchant === undefined ? {} : { merchantId: values.merchant }))
    } else if (command === 'keys revoke') {
      if (!target) {
        throw new UsageError('keys revoke needs a key id')
      }
      await revokeApiKey(deps, { keyId: target })
      print({ id: target, revoked: true })
    } else {
      throw new UsageError(`unknown command: ${command}`)
    }
    return 0
  } finally {
    await database.close()
  }
}

class UsageError extends Error {}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2))
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`)
    } else {
      console.error(isServiceError(error) ? `${error.code}: ${error.message}` : error)
    }
    process.exitCode = 1
  },
)
