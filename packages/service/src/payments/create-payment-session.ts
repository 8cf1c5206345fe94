import { AppError } from '@tollgate/core'
import { sql } from 'kysely'
import { toUpsertCustomerQuery, upsertCustomer } from '../customers/upsert-customer.js'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import { notifyDueJob, toInsertJobsQuery } from '../jobs/enqueue-job.js'
import type { ReservedIndex } from '../rails/types.js'
import { assertSessionUrl, parseFiatAmount } from './assert-session-input.js'
import { expireSessionJob } from './expire-payment-session.js'
import { sessionCustomerColumns, splitSessionCustomer } from './load-payment-session.js'
import { allocateSessionAddress, sessionAddressColumns } from './lock-session-address.js'
import { quoteSessionPayment, type SessionQuote } from './quote-session-payment.js'
import type { CreatePaymentSessionBody } from './schemas.js'
import type { SessionView } from './to-session-response.js'

/** Input of {@link createPaymentSession}: the caller's key scope and format, and the request body. */
export type CreatePaymentSessionInput = {
  merchantId: string
  environment: KeyEnvironment
  format: ResponseFormat
  body: CreatePaymentSessionBody
  /** The payment page the session was made from (its public reference), if any. */
  pageReference?: string
}

/**
 * Creates an open payment session and queues its expiry. With asset, chain and a customer e-mail the
 * deposit address is allocated and the rate locked at once; otherwise POST /payments/{reference}/address
 * does it later. Nothing is written when the input is refused.
 */
export async function createPaymentSession(
  deps: Deps,
  input: CreatePaymentSessionInput,
): Promise<SessionView> {
  const { body, environment } = input
  const amount = parseFiatAmount(body.amount)
  for (const field of ['cancelUrl', 'successUrl', 'webhookUrl'] as const) {
    assertSessionUrl(deps.settings, environment, field, body[field])
  }
  assertKnownAssetChain(deps, environment, body.asset, body.chain)
  const feePayer = body.feePayer ?? deps.settings.sessions.defaultFeePayer
  let quote: SessionQuote | undefined
  if (body.asset !== undefined && body.chain !== undefined) {
    // Priced before the transaction so a refused combination writes nothing and FX is not called under locks.
    quote = await quoteSessionPayment(deps, {
      environment,
      amount,
      currency: body.currency,
      chain: body.chain,
      asset: body.asset,
      feePayer,
      settlementCurrency: body.settlementCurrency ?? null,
    })
  }
  // The address's index is reserved before the transaction: taking it inside (the counter row's
  // update) held that row locked until commit, so every creation on a chain family waited for the
  // one before (docs/sessions.md "Benchmark").
  const reserved =
    quote && body.customer?.email !== undefined
      ? await deps.rails.addresses.reserveIndex({ environment, chain: quote.chain.chain, purpose: 'session' })
      : undefined
  const now = deps.clock.now()
  const expiresAt = new Date(now.getTime() + deps.settings.sessions.ttlSeconds * 1000)
  const made = { input, quote, feePayer, amount, now, expiresAt }
  if (!quote || body.customer?.email === undefined || reserved) {
    const insert = () => insertSessionAtOnce(deps, { ...made, reserved })
    // Inside a caller's transaction a deadlock aborted that transaction: the caller retries it.
    return deps.db.isTransaction ? insert() : retryOnDeadlock(insert)
  }
  // No index reserved ahead (blocks of 1): the counter's next is taken in the session's transaction.
  return inTransaction(deps.db, async (trx) => {
    const customer = body.customer
      ? await upsertCustomer(trx, deps, {
          merchantId: input.merchantId,
          environment,
          details: body.customer,
        })
      : null
    const id = deps.ids.create('pay')
    // With everything known the address is allocated first so the row is written once, locked.
    const { columns: locked, jobs } =
      quote && customer?.email
        ? await allocateSessionAddress(trx, deps, {
            sessionId: id,
            merchantId: input.merchantId,
            environment,
            quote,
            newSession: true,
            reserved,
          })
        : { columns: {}, jobs: [] }
    // The session, its expiry job (and the address's jobs) and their NOTIFY in one statement.
    const expiry = { kind: expireSessionJob, payload: { sessionId: id }, runAt: expiresAt, key: id }
    const { jobs_notified: _, ...row } = await trx
      .with('inserted_jobs', () => toInsertJobsQuery(trx, deps, [...jobs, expiry]))
      .with('notified', (qb) => qb.selectFrom('inserted_jobs').select(notifyDueJob(deps).as('notified')))
      .insertInto('payment_sessions')
      .values({ ...sessionValues(deps, { ...made, id }), customer_id: customer?.id ?? null, ...locked })
      .returningAll()
      // Referencing `notified` is what runs it (a CTE nothing reads is not evaluated).
      .returning(sql<string>`(select count(*) from notified)`.as('jobs_notified'))
      .executeTakeFirstOrThrow()
    return { row, customer }
  })
}

type SessionToMake = {
  input: CreatePaymentSessionInput
  quote: SessionQuote | undefined
  feePayer: 'merchant' | 'customer'
  amount: bigint
  now: Date
  expiresAt: Date
}

// The session row's columns but its customer and locked quote.
function sessionValues(deps: Pick<Deps, 'ids'>, made: SessionToMake & { id: string }) {
  const { input, quote } = made
  const { body } = input
  return {
    id: made.id,
    reference: deps.ids.create('ps'),
    merchant_id: input.merchantId,
    environment: input.environment,
    response_format: input.format,
    title: body.title,
    description: body.description ?? null,
    amount: made.amount,
    currency: body.currency,
    asset: quote?.asset.symbol ?? body.asset?.toUpperCase() ?? null,
    chain: body.chain ?? null,
    metadata: JSON.stringify(body.metadata ?? {}),
    cancel_url: body.cancelUrl ?? null,
    success_url: body.successUrl ?? null,
    webhook_url: body.webhookUrl ?? null,
    fee_payer: made.feePayer,
    settlement_currency: body.settlementCurrency ?? null,
    state: 'open' as const,
    payment_status: 'pending' as const,
    is_underpayment_accepted: body.isUnderpaymentAccepted ?? false,
    page_reference: input.pageReference ?? null,
    expires_at: made.expiresAt,
    created_at: made.now,
    updated_at: made.now,
  }
}

/**
 * The session in one statement, without a transaction: the customer's upsert, the deposit address
 * (its index reserved ahead, its key derived here), the session, its jobs and their NOTIFY are CTEs
 * of one insert, which PostgreSQL runs atomically (docs/sessions.md "Statements per request").
 */
async function insertSessionAtOnce(
  deps: Deps,
  made: SessionToMake & { reserved: ReservedIndex | undefined },
): Promise<SessionView> {
  const { input, quote } = made
  const { body, environment } = input
  const id = deps.ids.create('pay')
  const address =
    quote && made.reserved && body.customer?.email !== undefined
      ? deps.rails.addresses.derive({
          merchantId: input.merchantId,
          environment,
          chain: quote.chain.chain,
          purpose: 'session',
          ownerId: id,
          reserved: made.reserved,
        })
      : undefined
  const { columns: locked, jobs } =
    quote && address
      ? sessionAddressColumns(deps, { environment, quote, address: address.address })
      : { columns: {}, jobs: [] }
  const expiry = { kind: expireSessionJob, payload: { sessionId: id }, runAt: made.expiresAt, key: id }
  const customer = body.customer
  const db = deps.db
  const found = await db
    .with('upserted_customer', () =>
      customer
        ? toUpsertCustomerQuery(db, deps, { merchantId: input.merchantId, environment, details: customer })
        : db.selectFrom('customers').selectAll().where(sql.lit(false)),
    )
    .with('inserted_address', () =>
      address
        ? db.insertInto('deposit_addresses').values(address.values).returning('id')
        : db.selectFrom('deposit_addresses').select('id').where(sql.lit(false)),
    )
    .with('inserted_jobs', () => toInsertJobsQuery(db, deps, [...jobs, expiry]))
    .with('notified', (qb) => qb.selectFrom('inserted_jobs').select(notifyDueJob(deps).as('notified')))
    .with('inserted_session', (qb) =>
      qb
        .insertInto('payment_sessions')
        .values({
          ...sessionValues(deps, { ...made, id }),
          customer_id: customer ? sql<string>`(select id from upserted_customer)` : null,
          ...locked,
        })
        .returningAll(),
    )
    .selectFrom('inserted_session as s')
    .leftJoin('upserted_customer as c', (join) => join.onTrue())
    .selectAll('s')
    .select(sessionCustomerColumns)
    // Referencing `notified` is what runs it (a CTE nothing reads is not evaluated; the inserts always run).
    .select(sql<string>`(select count(*) from notified)`.as('jobs_notified'))
    .executeTakeFirstOrThrow()
  address?.inserted()
  const { jobs_notified: _, ...rest } = found
  return splitSessionCustomer(rest)
}

// A deadlock aborts the statement; running it again is the remedy (as `inTransaction` does).
async function retryOnDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (attempt >= 3 || (code !== '40P01' && code !== '40001')) {
        throw error
      }
    }
  }
}

// An asset or chain given alone must still exist somewhere in the registry (checked fully once both are known).
function assertKnownAssetChain(
  deps: Pick<Deps, 'rails'>,
  environment: KeyEnvironment,
  asset: string | undefined,
  chain: string | undefined,
): void {
  if (asset === undefined && chain === undefined) {
    return
  }
  const entries = deps.rails.chains.list(environment)
  const chainOk = chain === undefined || entries.some((e) => e.chain === chain)
  const symbol = asset?.toUpperCase()
  const assetOk =
    symbol === undefined ||
    entries.some(
      (e) => (chain === undefined || e.chain === chain) && e.assets.some((a) => a.symbol === symbol),
    )
  if (!chainOk || !assetOk) {
    throw new AppError('unsupported_asset_chain', {
      message: `${asset ?? 'any asset'} on ${chain ?? 'any chain'} is not supported`,
      context: { param: chainOk ? 'asset' : 'chain' },
    })
  }
}
