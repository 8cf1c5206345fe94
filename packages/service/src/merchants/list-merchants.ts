import type { Deps } from '../deps.js'
import type { Merchant } from './create-merchant.js'

/** Lists merchants, oldest first, optionally only those with exactly this name. */
export async function listMerchants(
  deps: Pick<Deps, 'db'>,
  input: { name?: string } = {},
): Promise<Merchant[]> {
  let query = deps.db
    .selectFrom('merchants')
    .select(['id', 'name', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
  if (input.name !== undefined) {
    query = query.where('name', '=', input.name)
  }
  const rows = await query.execute()
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }))
}
