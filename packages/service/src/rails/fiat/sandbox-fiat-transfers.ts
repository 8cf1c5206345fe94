import { AppError } from '@tollgate/core'
import type { Selectable } from 'kysely'
import { inTransaction } from '../../db/in-transaction.js'
import type { SandboxFiatTransfersTable } from '../../db/schema/rails-fiat.js'
import type { Deps } from '../../deps.js'
import { enqueueJob } from '../../jobs/enqueue-job.js'
import type { FiatTransfer, FiatTransferHandler } from '../types.js'
import { sandboxOutcomeOf } from './sandbox-outcome.js'

/** Job kind of the simulated provider callback (handler: `runFiatCallbackJob`). */
export const fiatCallbackJobKind = 'rails.fiat_callback'

/** Which provider a sandbox transfer went through. */
export type FiatRail = 'bank' | 'mobile_money'

/** What the provider is asked to pay: our id (its idempotency key), the amount and a narration. */
export type SandboxTransferInput = {
  id: string
  amount: bigint
  currency: string
  narration: string
  merchantId?: string
}

/** Who is paid: the account (NUBAN or E.164 phone) at its bank or mobile-money institution. */
export type SandboxPayee = {
  accountNumber: string
  accountName: string
  institutionCode: string
  institutionName: string
}

/** Options of the sandbox fiat providers. */
export type SandboxFiatOptions = {
  /** Delay of the simulated provider callback after a transfer (default 2000 ms). */
  callbackDelayMs?: number
}

type Row = Selectable<SandboxFiatTransfersTable>

const defaultFailureReason = 'Rejected by the beneficiary institution (sandbox)'

/**
 * The simulated provider's transfer book shared by the bank and mobile-money providers: transfers
 * keyed by our id in `sandbox_fiat_transfers`, results delivered by a delayed callback job to the
 * subscribers of the transfer's rail inside the transaction that records them.
 */
export function createSandboxFiatTransfers(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: SandboxFiatOptions = {},
) {
  const subscribers: Record<FiatRail, Set<FiatTransferHandler>> = { bank: new Set(), mobile_money: new Set() }
  const delayMs = options.callbackDelayMs ?? 2000

  const transfer = async (
    rail: FiatRail,
    input: SandboxTransferInput,
    payee: SandboxPayee,
  ): Promise<FiatTransfer> => {
    if (input.id.length === 0 || input.id.length > 100) {
      throw new AppError('validation_error', {
        message: 'transfer id must have 1-100 characters',
        context: { param: 'id' },
      })
    }
    if (input.amount <= 0n) {
      throw new AppError('validation_error', {
        message: 'amount must be greater than zero',
        context: { param: 'amount' },
      })
    }
    const outcome = sandboxOutcomeOf(payee.accountNumber)
    const now = deps.clock.now()
    const { row, created } = await inTransaction(deps.db, async (trx) => {
      const inserted = await trx
        .insertInto('sandbox_fiat_transfers')
        .values({
          id: input.id,
          rail,
          provider_reference: deps.ids.create('sbxtrf'),
          merchant_id: input.merchantId ?? null,
          currency: input.currency,
          amount: input.amount,
          account_number: payee.accountNumber,
          account_name: payee.accountName,
          institution_code: payee.institutionCode,
          institution_name: payee.institutionName,
          narration: input.narration,
          status: 'processing',
          planned_outcome: outcome === 'timeout' ? 'success' : outcome,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returningAll()
        .executeTakeFirst()
      if (inserted && outcome !== 'held') {
        await enqueueJob(trx, deps, {
          kind: fiatCallbackJobKind,
          payload: { transferId: input.id },
          runAt: new Date(now.getTime() + delayMs),
          key: input.id,
        })
      }
      const row =
        inserted ??
        (await trx
          .selectFrom('sandbox_fiat_transfers')
          .selectAll()
          .where('id', '=', input.id)
          .executeTakeFirstOrThrow())
      return { row, created: inserted !== undefined }
    })
    if (
      row.rail !== rail ||
      BigInt(row.amount) !== input.amount ||
      row.currency !== input.currency ||
      row.account_number !== payee.accountNumber ||
      row.institution_code !== payee.institutionCode
    ) {
      throw new AppError('idempotency_key_reused', {
        message: `transfer ${input.id} already exists with other details`,
        context: { param: 'id' },
      })
    }
    if (created) {
      deps.logger.info({ transferId: input.id, rail, outcome }, 'sandbox fiat transfer accepted')
      if (outcome === 'timeout') {
        // The provider took the transfer but the answer never came back: re-query with getTransfer.
        throw new AppError('provider_unavailable', {
          message: 'The payment provider did not answer in time; query the transfer again',
        })
      }
    }
    return toFiatTransfer(row)
  }

  const getTransfer = async (rail: FiatRail, id: string): Promise<FiatTransfer> => {
    const row = await deps.db
      .selectFrom('sandbox_fiat_transfers')
      .selectAll()
      .where('id', '=', id)
      .where('rail', '=', rail)
      .executeTakeFirst()
    if (!row) {
      throw new AppError('not_found', { message: `The provider has no transfer ${id}` })
    }
    return toFiatTransfer(row)
  }

  const complete = async (input: {
    id: string
    outcome?: 'success' | 'failed'
    failureReason?: string
    merchantId?: string
  }): Promise<FiatTransfer> =>
    inTransaction(deps.db, async (trx) => {
      const row = await trx
        .selectFrom('sandbox_fiat_transfers')
        .selectAll()
        .where('id', '=', input.id)
        .forUpdate()
        .executeTakeFirst()
      if (
        !row ||
        (input.merchantId !== undefined && row.merchant_id !== null && row.merchant_id !== input.merchantId)
      ) {
        throw new AppError('not_found', { message: `No sandbox transfer ${input.id}` })
      }
      if (row.status !== 'processing') {
        throw new AppError('transfer_already_completed', {
          message: `Transfer ${input.id} is already ${row.status}; its callback was delivered`,
        })
      }
      const outcome = input.outcome ?? (row.planned_outcome === 'failed' ? 'failed' : 'success')
      const now = deps.clock.now()
      const updated = await trx
        .updateTable('sandbox_fiat_transfers')
        .set({
          status: outcome,
          failure_reason: outcome === 'failed' ? (input.failureReason ?? defaultFailureReason) : null,
          updated_at: now,
          completed_at: now,
        })
        .where('id', '=', input.id)
        .returningAll()
        .executeTakeFirstOrThrow()
      const result = toFiatTransfer(updated)
      for (const handler of subscribers[updated.rail]) {
        await handler(trx, result)
      }
      return result
    })

  const subscribe = (rail: FiatRail, handler: FiatTransferHandler): (() => void) => {
    subscribers[rail].add(handler)
    return () => {
      subscribers[rail].delete(handler)
    }
  }

  return { transfer, getTransfer, complete, subscribe }
}

function toFiatTransfer(row: Row): FiatTransfer {
  return {
    id: row.id,
    providerReference: row.provider_reference,
    status: row.status,
    failureReason: row.failure_reason,
  }
}
