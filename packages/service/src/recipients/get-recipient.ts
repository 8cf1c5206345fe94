import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { RecipientRow } from './recipient.js'

/** A merchant's recipient (not deleted) by id in one environment, or undefined; `forUpdate` locks its row. */
export function findRecipient(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string; forUpdate?: boolean },
): Promise<RecipientRow | undefined> {
  const query = deps.db
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
  return (input.forUpdate ? query.forUpdate() : query).executeTakeFirst()
}
