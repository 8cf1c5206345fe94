import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { RecipientRow } from './recipient.js'

/** A merchant's recipient by id in one environment, or undefined (deleted ones included only when asked). */
export function findRecipient(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string },
): Promise<RecipientRow | undefined> {
  return deps.db
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
}
