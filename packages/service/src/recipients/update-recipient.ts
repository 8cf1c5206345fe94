import { AppError } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { findRecipient } from './get-recipient.js'
import { type RecipientRow, toSearchText } from './recipient.js'

/** Fields PATCH /recipients/{id} may change; `notes: ""` clears the notes. */
export type RecipientChanges = {
  label?: string | undefined
  isDefault?: boolean | undefined
  isTrusted?: boolean | undefined
  notes?: string | undefined
}

const notFound = (id: string) =>
  new AppError('not_found', { message: `Recipient ${id} not found`, context: { param: 'id' } })

/**
 * Changes a recipient's label, default and trusted flags or notes. At most one default per type: making
 * one the default clears the previous one in the same transaction. Temporary recipients cannot be default.
 */
export async function updateRecipient(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string; changes: RecipientChanges },
): Promise<RecipientRow> {
  const { changes } = input
  return inTransaction(deps.db, async (trx) => {
    const current = await findRecipient(
      { db: trx },
      { merchantId: input.merchantId, environment: input.environment, id: input.id, forUpdate: true },
    )
    if (!current) {
      throw notFound(input.id)
    }
    if (changes.isDefault && current.is_temporary) {
      throw new AppError('validation_error', {
        message: 'A temporary recipient cannot be the default',
        context: { param: 'isDefault' },
      })
    }
    const now = deps.clock.now()
    if (changes.isDefault && !current.is_default) {
      await trx
        .updateTable('recipients')
        .set({ is_default: false, updated_at: now })
        .where('merchant_id', '=', input.merchantId)
        .where('environment', '=', input.environment)
        .where('type', '=', current.type)
        .where('is_default', '=', true)
        .execute()
    }
    const label = changes.label ?? current.label
    return trx
      .updateTable('recipients')
      .set({
        label,
        is_default: changes.isDefault ?? current.is_default,
        is_trusted: changes.isTrusted ?? current.is_trusted,
        notes: changes.notes === undefined ? current.notes : changes.notes === '' ? null : changes.notes,
        search_text: toSearchText(current.details, label),
        updated_at: now,
      })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow()
  })
}

/** Removes a recipient from the address book (soft delete: payouts keep their snapshot of it). */
export async function deleteRecipient(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string },
): Promise<void> {
  const now = deps.clock.now()
  const deleted = await deps.db
    .updateTable('recipients')
    .set({ deleted_at: now, is_default: false, updated_at: now })
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  if (!deleted) {
    throw notFound(input.id)
  }
}
