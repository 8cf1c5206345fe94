import type { Deps } from '../deps.js'

/** A merchant (tenant). */
export type Merchant = { id: string; name: string; createdAt: Date }

/** Creates a merchant with a fresh `mer_` id. */
export async function createMerchant(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { name: string },
): Promise<Merchant> {
  const row = await deps.db
    .insertInto('merchants')
    .values({ id: deps.ids.create('mer'), name: input.name, created_at: deps.clock.now() })
    .returning(['id', 'name', 'created_at'])
    .executeTakeFirstOrThrow()
  return { id: row.id, name: row.name, createdAt: row.created_at }
}
