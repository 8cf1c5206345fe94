import {
  createApiKey,
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createMerchant,
  createRails,
  systemClock,
} from '@tollgate/service'

type RailsInput = Parameters<typeof createRails>

/**
 * The service's dependencies over `db` with the devnet's chains (silent logger, default settings),
 * and one new merchant with a test API key: what a benchmark of the merchant API starts from.
 */
export async function createBenchMerchant(input: {
  db: RailsInput[0]['db']
  networks: NonNullable<NonNullable<RailsInput[1]>['networks']>
}) {
  const base = {
    db: input.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const deps = {
    ...base,
    rails: createRails(base, { networks: input.networks }),
    settings: createDefaultSettings(),
  }
  const merchant = await createMerchant(deps, { name: 'Bench merchant' })
  const { key } = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
  return { deps, key }
}
