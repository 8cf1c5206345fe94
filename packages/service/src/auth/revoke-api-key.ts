import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'

/** Revokes an API key (idempotent); throws `not_found` for an unknown key id. */
export async function revokeApiKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { keyId: string },
): Promise<void> {
  const key = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'revoked_at'])
    .where('id', '=', input.keyId)
    .executeTakeFirst()
  if (!key) {
    throw new AppError('not_found', {
      message: `API key ${input.keyId} not found`,
      context: { param: 'keyId' },
    })
  }
  await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: deps.clock.now() })
    .where('id', '=', input.keyId)
    .where('revoked_at', 'is', null)
    .execute()
}
