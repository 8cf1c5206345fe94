import { randomBytes, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { KeyPairSigner } from '@solana/kit'
import { AppError } from '@tollgate/core'
import { sql } from 'kysely'
import type { Hash, LocalAccount } from 'viem'
import { inTransaction } from '../../db/in-transaction.js'
import type { SolanaSendAttempt } from '../../db/schema/rails-chain.js'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import { createCoalescer } from '../../util/coalesce.js'
import type { ChainAsset, ChainRegistry, CryptoSend, CryptoSender, CryptoSendHandler } from '../types.js'
import type { EvmTransferSender } from './create-evm-transfer-sender.js'
import type { SolanaTransferSender } from './create-solana-transfer-sender.js'
import { selectIncomingTransfers } from './incoming-store.js'

type SendRow = {
  id: string
  source_address_id: string | null
  idempotency_key: string
  environment: KeyEnvironment
  chain: string
  network: string
  asset: string
  to_address: string
  amount: string
  status: CryptoSend['status']
  tx_hashes: string[]
  tx_hash: string | null
  failure_reason: string | null
  attempts: SolanaSendAttempt[]
  lease_owner: string | null
  lease_until: Date | null
  created_at: Date
  updated_at: Date
}

function toCryptoSend(row: SendRow): CryptoSend {
  return {
    id: row.id,
    idempotencyKey: row.idempotency_key,
    environment: row.environment,
    chain: row.chain as ChainName,
    asset: row.asset,
    to: row.to_address,
    amount: BigInt(row.amount),
    status: row.status,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** The crypto sender with its lifecycle: `start()` resumes unsettled sends after a restart, `stop()` waits for none. */
export type CryptoSenderRail = Omit<CryptoSender, 'getTreasury'> & {
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * Options of {@link createCryptoSender}: the registry, one transfer sender per reachable EVM network,
 * the treasury address of a chain, and the key of a deposit address (sweeps sign with it).
 */
export type CryptoSenderOptions = {
  chains: ChainRegistry
  evm: (network: string) => EvmTransferSender | undefined
  treasuryOf: (environment: KeyEnvironment, chain: ChainName) => string | undefined
  depositKeyOf: (addressId: string) => Promise<LocalAccount>
  /** One transfer sender per reachable Solana network. */
  solana?: (network: string) => SolanaTransferSender | undefined
  /** The ed25519 key of a Solana deposit address (Solana sweeps sign with it). */
  solanaDepositKeyOf?: (addressId: string) => Promise<KeyPairSigner>
  /** How long one wait for a receipt lasts before the send is left pending for the next start (ms). */
  receiptTimeoutMs?: number
  /**
   * How long a process owns a pending send without renewing (ms, default 30,000): a send whose
   * lease ran out (its process died) is resumed by another process within one lease.
   */
  leaseMs?: number
  /** Gap between two status checks of a Solana send (ms, default 400). */
  solanaPollMs?: number
  /** Most sends settled in one transaction (default 64); 1 settles each send in its own, concurrently. */
  settleBatch?: number
}

/**
 * Outbound crypto from the treasury, exactly once per (environment, idempotency key) (docs/rails.md
 * "Chains"): the send is claimed as a row before anything is signed, every transaction hash is
 * recorded before its broadcast, and the final status is recorded with the `onSettled` handlers in
 * one transaction. On a chain without a node (sandbox only) the send is simulated and confirmed.
 * A pending send is driven by one process at a time (a lease renewed while it waits); another
 * process resumes it when the lease runs out.
 */
export function createCryptoSender(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: CryptoSenderOptions,
): CryptoSenderRail {
  const handlers = new Set<CryptoSendHandler>()
  const tracking = new Set<Promise<void>>()
  const timeoutMs = options.receiptTimeoutMs ?? 120_000
  const leaseMs = options.leaseMs ?? 30_000
  const solanaPollMs = options.solanaPollMs ?? 400
  const processId = randomUUID()
  // Sends this process drives now (with how many tasks hold each); the heartbeat renews their leases.
  const owned = new Map<string, number>()
  let stopped = false
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let resumer: ReturnType<typeof setInterval> | undefined

  const leaseEnd = () => new Date(deps.clock.now().getTime() + leaseMs)

  const load = (environment: KeyEnvironment, key: string) =>
    deps.db
      .selectFrom('crypto_sends')
      .selectAll()
      .where('environment', '=', environment)
      .where('idempotency_key', '=', key)
      .executeTakeFirst()

  // Renews this process's leases; a lease lost to another process stops the drive that held it.
  const renew = async (ids: string[]) => {
    if (ids.length === 0) {
      return []
    }
    const rows = await deps.db
      .updateTable('crypto_sends')
      .set({ lease_until: leaseEnd() })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where('lease_owner', '=', processId)
      .returning('id')
      .execute()
    return rows.map((r) => r.id)
  }

  const own = (id: string) => {
    owned.set(id, (owned.get(id) ?? 0) + 1)
    if (!heartbeat) {
      heartbeat = setInterval(
        () => {
          renew([...owned.keys()]).catch((err: unknown) =>
            deps.logger.warn({ err }, 'crypto send lease renewal failed'),
          )
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      )
      heartbeat.unref()
    }
  }
  const disown = (id: string) => {
    const holders = (owned.get(id) ?? 1) - 1
    if (holders > 0) {
      owned.set(id, holders)
    } else {
      owned.delete(id)
    }
    if (owned.size === 0 && heartbeat) {
      clearInterval(heartbeat)
      heartbeat = undefined
    }
  }

  type Outcome = { status: 'confirmed' | 'failed'; txHash: string | null; reason: string | null }

  const runHandlers = async (trx: Deps['db'], row: SendRow) => {
    for (const handler of handlers) {
      await handler(trx, toCryptoSend(row))
    }
  }

  // Records one send's final status and runs every handler, in `trx`. The `status = 'pending'` guard
  // makes it exactly once: a send settled already (here or by another process) matches nothing.
  const settleIn = async (trx: Deps['db'], id: string, outcome: Outcome) => {
    const row = await trx
      .updateTable('crypto_sends')
      .set({
        status: outcome.status,
        tx_hash: outcome.txHash,
        failure_reason: outcome.reason,
        lease_owner: null,
        lease_until: null,
        updated_at: deps.clock.now(),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst()
    if (row) {
      await runHandlers(trx, row)
    }
    return row
  }

  // Several sends' final statuses in one statement (same guard), then each send's handlers in order.
  const settleManyIn = async (trx: Deps['db'], items: { id: string; outcome: Outcome }[]) => {
    const values = items.map(
      ({ id, outcome }) =>
        sql`(${id}::text, ${outcome.status}::text, ${outcome.txHash}::text, ${outcome.reason}::text)`,
    )
    const { rows } = await sql<SendRow>`update crypto_sends s
      set status = v.status, tx_hash = v.tx_hash, failure_reason = v.reason, lease_owner = null,
        lease_until = null, updated_at = ${deps.clock.now()}::timestamptz
      from (values ${sql.join(values)}) as v (id, status, tx_hash, reason)
      where s.id = v.id and s.status = 'pending'
      returning s.*`.execute(trx)
    const byId = new Map(rows.map((row) => [row.id, row]))
    const settled: (SendRow | undefined)[] = []
    for (const { id } of items) {
      // A send listed twice is settled (and handled) once, for its first item.
      const row = byId.get(id)
      byId.delete(id)
      if (row) {
        await runHandlers(trx, row)
      }
      settled.push(row)
    }
    return settled
  }

  // Settlements whose receipts arrive together share one transaction (docs/rails.md "Batched
  // settlements"): the first runs alone; those that arrive while it runs wait and then run as one
  // transaction (one UPDATE of their rows, then each send's handlers in order), so a burst of
  // receipts is a few commits and one hold of the accounts its handlers lock (a payout's merchant
  // account) per batch instead of one per send. A batch that fails (any handler, a deadlock) is rolled back whole and each of
  // its sends runs alone in its own transaction, so one failing send never fails or blocks another.
  const settleQueue = createCoalescer<{ id: string; outcome: Outcome }, SendRow | undefined>({
    one: ({ id, outcome }) => inTransaction(deps.db, (trx) => settleIn(trx, id, outcome)),
    many: (items) =>
      inTransaction(
        deps.db,
        (trx) => settleManyIn(trx, items),
        // A deadlock falls back to the sends one by one (each retried there) rather than the batch again.
        { retries: 0 },
      ),
    maxBatch: options.settleBatch ?? 64,
  })
  const settle = (id: string, outcome: Outcome) =>
    (options.settleBatch ?? 64) > 1
      ? settleQueue('settle', { id, outcome })
      : inTransaction(deps.db, (trx) => settleIn(trx, id, outcome))

  // A drive that gave up hands its lease back, so the resumer takes the send again at its next turn
  // instead of after a whole lease (released only once this process no longer drives it).
  const release = (id: string) =>
    deps.db
      .updateTable('crypto_sends')
      .set({ lease_until: null })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('lease_owner', '=', processId)
      .execute()

  const keep = (id: string, task: Promise<unknown>) => {
    own(id)
    let failed = false
    const tracked: Promise<void> = task
      .then(() => undefined)
      .catch((error: unknown) => {
        failed = true
        if (!stopped) {
          deps.logger.warn({ err: error, sendId: id }, 'crypto send still unsettled; it is resumed later')
        }
      })
      .finally(async () => {
        disown(id)
        tracking.delete(tracked)
        if (failed && !stopped && !owned.has(id)) {
          await release(id).catch((err: unknown) =>
            deps.logger.warn({ err, sendId: id }, 'crypto send lease release failed'),
          )
        }
      })
    tracking.add(tracked)
    return tracked
  }

  // Waits for whichever recorded hash lands (a replacement may be the one mined); a timeout leaves it pending.
  const track = (id: string, sender: EvmTransferSender, hashes: Hash[]) =>
    keep(
      id,
      Promise.any(hashes.map((h) => sender.waitForReceipt(h, timeoutMs))).then((receipt) =>
        settle(id, {
          status: receipt.success ? 'confirmed' : 'failed',
          txHash: receipt.hash,
          reason: receipt.success ? null : 'reverted',
        }),
      ),
    )

  /**
   * Drives a Solana send to its end while this process holds its lease. Each signed transaction is
   * recorded (attempts, tx_hashes) before its broadcast; a new one is signed only when every earlier
   * one is proven dead: unknown to the cluster after the finalized block height passed its
   * `lastValidBlockHeight` (checked twice around that read), so two can never both land.
   */
  const driveSolana = async (
    row: SendRow,
    sender: SolanaTransferSender,
    asset: ChainAsset,
    onRecorded: () => void,
  ) => {
    const attempts = [...row.attempts]
    const owner =
      row.source_address_id && options.solanaDepositKeyOf
        ? await options.solanaDepositKeyOf(row.source_address_id)
        : undefined
    const deadline = Date.now() + timeoutMs
    // A resumed send may hold a signed transaction nobody broadcast: send it again (same id, harmless).
    let rebroadcast = attempts.length > 0
    if (rebroadcast) {
      onRecorded()
    }
    while (!stopped && Date.now() < deadline) {
      if (attempts.length > 0) {
        const states = await sender.states(attempts.map((a) => a.signature))
        const landed = states.findIndex((s) => s.landed)
        const state = states[landed]
        if (state?.landed) {
          const signature = attempts[landed]?.signature ?? null
          await settle(row.id, {
            status: state.err === null ? 'confirmed' : 'failed',
            txHash: signature,
            reason: state.err === null ? null : `transaction failed: ${JSON.stringify(state.err)}`,
          })
          return
        }
        const inFlight = states.some((s) => !s.landed && s.processed)
        const lastValid = attempts.reduce(
          (max, a) => (BigInt(a.lastValidBlockHeight) > max ? BigInt(a.lastValidBlockHeight) : max),
          0n,
        )
        const dead =
          !inFlight &&
          (await sender.finalizedBlockHeight()) > lastValid &&
          (await sender.states(attempts.map((a) => a.signature))).every((s) => !s.landed && !s.processed)
        if (!dead) {
          const latest = attempts.at(-1)
          if (rebroadcast && latest) {
            rebroadcast = false
            await sender.broadcast(latest.wire)
          }
          await sleep(solanaPollMs)
          if ((await renew([row.id])).length === 0) {
            return
          }
          continue
        }
      }
      const attempt = await sender
        .sign({ asset, to: row.to_address, amount: BigInt(row.amount), ...(owner ? { owner } : {}) })
        .catch(async (error: unknown) => {
          if (attempts.length > 0) {
            throw error
          }
          // Nothing was ever signed: failing is safe (as on EVM before the first hash is recorded).
          const reason = error instanceof Error ? error.message.slice(0, 500) : String(error)
          await settle(row.id, { status: 'failed', txHash: null, reason })
          return undefined
        })
      if (!attempt) {
        return
      }
      const recorded = await deps.db
        .updateTable('crypto_sends')
        .set({
          attempts: sql`attempts || ${JSON.stringify([attempt])}::jsonb`,
          tx_hashes: sql`tx_hashes || ${JSON.stringify([attempt.signature])}::jsonb`,
          tx_hash: attempt.signature,
          lease_until: leaseEnd(),
          updated_at: deps.clock.now(),
        })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where('lease_owner', '=', processId)
        .returning('id')
        .executeTakeFirst()
      if (!recorded) {
        // Another process took the send over (this one stalled past its lease): it drives it now.
        return
      }
      attempts.push(attempt)
      onRecorded()
      const result = await sender.broadcast(attempt.wire)
      if (result.status === 'refused') {
        // The node refused it before broadcast (preflight), and every earlier attempt is dead.
        await settle(row.id, { status: 'failed', txHash: null, reason: result.reason })
        return
      }
      if (result.status === 'sent') {
        await sleep(solanaPollMs)
      }
    }
  }

  // Returns the send's row as this call last wrote it (undefined when it does not know: load it).
  const broadcast = async (row: SendRow): Promise<SendRow | undefined> => {
    const entry = options.chains.getByNetwork(row.environment, row.network)
    const asset = options.chains.findAsset(row.environment, row.chain as ChainName, row.asset)
    const solana = options.solana?.(row.network)
    if (entry?.hasNode && asset && solana) {
      // Returns once the first transaction is recorded (or the send is over); the drive goes on.
      await new Promise<void>((resolve) => {
        void keep(row.id, driveSolana(row, solana, asset, resolve)).finally(resolve)
      })
      return undefined
    }
    const sender = options.evm(row.network)
    if (!entry?.hasNode || !sender || !asset) {
      // Sandbox chains without a node: the send is simulated and final at once.
      return settle(row.id, {
        status: 'confirmed',
        txHash: `sim_${randomBytes(16).toString('hex')}`,
        reason: null,
      })
    }
    let recorded: SendRow | undefined
    try {
      const owner = row.source_address_id ? await options.depositKeyOf(row.source_address_id) : undefined
      const transfer = { id: row.id, asset, to: row.to_address, amount: BigInt(row.amount) }
      const hash = await sender.broadcast(owner ? { ...transfer, owner } : transfer, async (h) => {
        recorded = await deps.db
          .updateTable('crypto_sends')
          .set({
            tx_hash: h,
            tx_hashes: sql`tx_hashes || ${JSON.stringify([h])}::jsonb`,
            updated_at: deps.clock.now(),
          })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      })
      track(row.id, sender, [hash])
      return recorded
    } catch (error) {
      if (recorded) {
        // A hash may be out there: never guess, keep waiting for it.
        const current = await deps.db
          .selectFrom('crypto_sends')
          .select('tx_hashes')
          .where('id', '=', row.id)
          .executeTakeFirstOrThrow()
        track(row.id, sender, current.tx_hashes as Hash[])
        return undefined
      }
      const reason = error instanceof Error ? error.message.slice(0, 500) : String(error)
      return settle(row.id, { status: 'failed', txHash: null, reason })
    }
  }

  // Resumes a pending send this process just leased: wait for its hashes, or broadcast it.
  const resumeRow = async (row: SendRow) => {
    if (owned.has(row.id)) {
      return
    }
    const evm = options.evm(row.network)
    const solana = options.solana?.(row.network)
    if (!solana && evm && row.tx_hashes.length > 0) {
      track(row.id, evm, row.tx_hashes as Hash[])
    } else if (solana || row.tx_hashes.length === 0) {
      // A Solana send (its drive sorts out its attempts), or one claimed but never broadcast (a
      // hash is recorded before every broadcast).
      void keep(row.id, broadcast(row))
    }
  }

  // Leases every pending send whose lease ran out. Never one whose lease is still running, even this
  // process's own: a send claimed a moment ago may not be marked as driven yet when this answer comes
  // back, and resuming it then would start a second drive of the same send. A drive of this process
  // that gave up releases its lease (`keep`), so its send comes back here at the next turn.
  const resume = async () => {
    const now = deps.clock.now()
    const rows = await deps.db
      .updateTable('crypto_sends')
      .set({ lease_owner: processId, lease_until: leaseEnd() })
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .execute()
    for (const row of rows) {
      await resumeRow(row)
    }
  }

  // Claims the send's row (once per environment and key) and broadcasts it when this call won the claim.
  const claim = async (input: {
    environment: KeyEnvironment
    idempotencyKey: string
    chain: ChainName
    network: string
    asset: string
    to: string
    amount: bigint
    sourceAddressId: string | null
  }): Promise<CryptoSend> => {
    const now = deps.clock.now()
    const inserted = await deps.db
      .insertInto('crypto_sends')
      .values({
        id: deps.ids.create('csend'),
        environment: input.environment,
        idempotency_key: input.idempotencyKey,
        chain: input.chain,
        network: input.network,
        asset: input.asset,
        source_address_id: input.sourceAddressId,
        to_address: input.to,
        amount: input.amount,
        status: 'pending',
        lease_owner: processId,
        lease_until: leaseEnd(),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['environment', 'idempotency_key']).doNothing())
      .returningAll()
      .executeTakeFirst()
    let latest: SendRow | undefined
    if (inserted) {
      // Owned while it is broadcast, so this process's own resumer never picks it up meanwhile.
      own(inserted.id)
      try {
        latest = await broadcast(inserted)
      } finally {
        disown(inserted.id)
      }
    }
    // The row as the broadcast left it (pending with its first hash, or already final), else read.
    const row = latest ?? (await load(input.environment, input.idempotencyKey))
    if (!row) {
      throw new AppError('internal_error', { message: 'crypto send lost its row' })
    }
    if (
      row.chain !== input.chain ||
      row.asset !== input.asset ||
      row.to_address !== input.to ||
      BigInt(row.amount) !== input.amount
    ) {
      throw new AppError('idempotency_key_reused', {
        message: 'this idempotency key was used for another send',
      })
    }
    return toCryptoSend(row)
  }

  // Claims a send whose amount is computed afresh (sweeps): the first claim's row wins, whatever amount it has.
  const claimOnce = async (input: Parameters<typeof claim>[0]) => {
    const existing = await load(input.environment, input.idempotencyKey)
    if (existing) {
      return toCryptoSend(existing)
    }
    try {
      return await claim(input)
    } catch (error) {
      const row = await load(input.environment, input.idempotencyKey)
      if (row) {
        return toCryptoSend(row)
      }
      throw error
    }
  }

  // Polls a send until it is final or `timeoutMs` passes (then returns it still pending).
  const waitUntilFinal = async (environment: KeyEnvironment, key: string) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const row = await load(environment, key)
      if (row?.status !== 'pending' || Date.now() > deadline || stopped) {
        return row ? toCryptoSend(row) : undefined
      }
      await sleep(100)
    }
  }

  return {
    send: async (input) => {
      const entry = options.chains.get(input.environment, input.chain)
      const asset = options.chains.findAsset(input.environment, input.chain, input.asset)
      if (!entry || !asset) {
        throw new AppError('unknown_asset', { context: { network: input.chain, asset: input.asset } })
      }
      if (!options.chains.isValidAddress(input.chain, input.to, input.environment) || input.amount <= 0n) {
        throw new AppError('validation_error', {
          message: `not a ${input.chain} address or not a positive amount`,
        })
      }
      if (!entry.hasNode && input.environment === 'live') {
        throw new AppError('provider_unavailable', { message: `no node configured for ${input.chain}` })
      }
      // A chain with a node but no sender here must never fall back to simulation.
      if (entry.hasNode && !options.evm(entry.network) && !options.solana?.(entry.network)) {
        throw new AppError('provider_unavailable', {
          message: `outbound sends on ${input.chain} are not available`,
        })
      }
      return claim({ ...input, network: entry.network, asset: asset.symbol, sourceAddressId: null })
    },
    sweep: async (transferId) => {
      const [transfer] = await selectIncomingTransfers(deps.db, { ids: [transferId] })
      if (transfer?.status !== 'confirmed') {
        return undefined
      }
      const { environment, chain, network } = transfer
      const key = `sweep:${transfer.id}`
      const existing = await load(environment, key)
      if (existing) {
        return toCryptoSend(existing)
      }
      const treasury = options.treasuryOf(environment, chain)
      const asset = options.chains.findAsset(environment, chain, transfer.asset)
      const evm = options.evm(network)
      if (!treasury || !asset || (!evm && !options.solana?.(network))) {
        return undefined
      }
      const sweep = {
        environment,
        idempotencyKey: key,
        chain,
        network,
        asset: transfer.asset,
        to: treasury,
        sourceAddressId: transfer.address.id,
      }
      // Solana: the treasury pays the fee and co-signs; EIP-3009 tokens: a fee payer submits the
      // deposit key's authorization. Neither needs gas at the deposit address.
      if (!evm || asset.eip712) {
        return claimOnce({ ...sweep, amount: transfer.amount })
      }
      const plan = await evm.planSweep({
        asset,
        from: transfer.address.address,
        to: treasury,
        amount: transfer.amount,
      })
      const native = options.chains.get(environment, chain)?.assets.find((a) => a.kind === 'native')
      if (!plan || !native) {
        return undefined
      }
      if (plan.topUp > 0n) {
        // Gas first, from the treasury, exactly once per transfer; the sweep waits for it to land.
        const gas = await claimOnce({
          environment,
          idempotencyKey: `sweep-gas:${transfer.id}`,
          chain,
          network,
          asset: native.symbol,
          to: transfer.address.address,
          amount: plan.topUp,
          sourceAddressId: null,
        })
        const landed = await waitUntilFinal(environment, gas.idempotencyKey)
        if (landed?.status !== 'confirmed') {
          throw new AppError('provider_unavailable', {
            message: `the gas top-up of sweep ${key} is ${landed?.status ?? 'missing'}; the sweep runs again later`,
          })
        }
      }
      return claimOnce({ ...sweep, amount: plan.amount })
    },
    get: async (idempotencyKey, environment) => {
      const row = await load(environment, idempotencyKey)
      return row ? toCryptoSend(row) : undefined
    },
    onSettled: (handler) => {
      handlers.add(handler)
      return () => {
        handlers.delete(handler)
      }
    },
    start: async () => {
      stopped = false
      await resume()
      resumer = setInterval(
        () => {
          resume().catch((err: unknown) => deps.logger.warn({ err }, 'resuming crypto sends failed'))
        },
        Math.max(50, Math.floor(leaseMs / 2)),
      )
      resumer.unref()
    },
    stop: async () => {
      stopped = true
      if (resumer) {
        clearInterval(resumer)
        resumer = undefined
      }
      await Promise.allSettled([...tracking])
    },
  }
}
