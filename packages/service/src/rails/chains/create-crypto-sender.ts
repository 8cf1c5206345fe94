import { randomBytes } from 'node:crypto'
import { AppError } from '@tollgate/core'
import { sql } from 'kysely'
import type { Hash, LocalAccount } from 'viem'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import type { ChainRegistry, CryptoSend, CryptoSender, CryptoSendHandler } from '../types.js'
import type { EvmTransferSender } from './create-evm-transfer-sender.js'
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
  /** How long one wait for a receipt lasts before the send is left pending for the next start (ms). */
  receiptTimeoutMs?: number
}

/**
 * Outbound crypto from the treasury, exactly once per (environment, idempotency key) (docs/rails.md
 * "Chains"): the send is claimed as a row before anything is signed, every transaction hash is
 * recorded before its broadcast, and the final status is recorded with the `onSettled` handlers in
 * one transaction. On a chain without a node (sandbox only) the send is simulated and confirmed.
 */
export function createCryptoSender(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: CryptoSenderOptions,
): CryptoSenderRail {
  const handlers = new Set<CryptoSendHandler>()
  const tracking = new Set<Promise<void>>()
  const timeoutMs = options.receiptTimeoutMs ?? 120_000
  let stopped = false

  const load = (environment: KeyEnvironment, key: string) =>
    deps.db
      .selectFrom('crypto_sends')
      .selectAll()
      .where('environment', '=', environment)
      .where('idempotency_key', '=', key)
      .executeTakeFirst()

  const settle = async (
    id: string,
    outcome: { status: 'confirmed' | 'failed'; txHash: string | null; reason: string | null },
  ) =>
    inTransaction(deps.db, async (trx) => {
      const row = await trx
        .updateTable('crypto_sends')
        .set({
          status: outcome.status,
          tx_hash: outcome.txHash,
          failure_reason: outcome.reason,
          updated_at: deps.clock.now(),
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
      if (row) {
        for (const handler of handlers) {
          await handler(trx, toCryptoSend(row))
        }
      }
    })

  // Waits for whichever recorded hash lands (a replacement may be the one mined); a timeout leaves it pending.
  const track = (id: string, sender: EvmTransferSender, hashes: Hash[]) => {
    const task = Promise.any(hashes.map((h) => sender.waitForReceipt(h, timeoutMs)))
      .then((receipt) =>
        settle(id, {
          status: receipt.success ? 'confirmed' : 'failed',
          txHash: receipt.hash,
          reason: receipt.success ? null : 'reverted',
        }),
      )
      .catch((error: unknown) => {
        if (!stopped) {
          deps.logger.warn(
            { err: error, sendId: id },
            'crypto send still unconfirmed; it is resumed at the next start',
          )
        }
      })
      .finally(() => tracking.delete(task))
    tracking.add(task)
  }

  const broadcast = async (row: SendRow) => {
    const entry = options.chains.getByNetwork(row.environment, row.network)
    const asset = options.chains.findAsset(row.environment, row.chain as ChainName, row.asset)
    const sender = options.evm(row.network)
    if (!entry?.hasNode || !sender || !asset) {
      // Sandbox chains without a node: the send is simulated and final at once.
      await settle(row.id, {
        status: 'confirmed',
        txHash: `sim_${randomBytes(16).toString('hex')}`,
        reason: null,
      })
      return
    }
    let recorded = false
    try {
      const owner = row.source_address_id ? await options.depositKeyOf(row.source_address_id) : undefined
      const transfer = { id: row.id, asset, to: row.to_address, amount: BigInt(row.amount) }
      const hash = await sender.broadcast(owner ? { ...transfer, owner } : transfer, async (h) => {
        await deps.db
          .updateTable('crypto_sends')
          .set({
            tx_hash: h,
            tx_hashes: sql`tx_hashes || ${JSON.stringify([h])}::jsonb`,
            updated_at: deps.clock.now(),
          })
          .where('id', '=', row.id)
          .execute()
        recorded = true
      })
      track(row.id, sender, [hash])
    } catch (error) {
      if (recorded) {
        // A hash may be out there: never guess, keep waiting for it.
        const current = await deps.db
          .selectFrom('crypto_sends')
          .select('tx_hashes')
          .where('id', '=', row.id)
          .executeTakeFirstOrThrow()
        track(row.id, sender, current.tx_hashes as Hash[])
        return
      }
      const reason = error instanceof Error ? error.message.slice(0, 500) : String(error)
      await settle(row.id, { status: 'failed', txHash: null, reason })
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
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['environment', 'idempotency_key']).doNothing())
      .returningAll()
      .executeTakeFirst()
    if (inserted) {
      await broadcast(inserted)
    }
    const row = await load(input.environment, input.idempotencyKey)
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
      // A chain with a node but no sender here (Solana: not built yet) must never fall back to simulation.
      if (entry.hasNode && !options.evm(entry.network)) {
        throw new AppError('provider_unavailable', {
          message: `outbound sends on ${input.chain} are not built yet`,
        })
      }
      return claim({ ...input, network: entry.network, asset: asset.symbol, sourceAddressId: null })
    },
    sweep: async (transferId) => {
      const [transfer] = await selectIncomingTransfers(deps.db, { ids: [transferId] })
      const treasury = transfer && options.treasuryOf(transfer.environment, transfer.chain)
      const asset = transfer && options.chains.findAsset(transfer.environment, transfer.chain, transfer.asset)
      // Only EIP-3009 tokens on a reachable chain for now: no gas is needed at the deposit address.
      if (transfer?.status !== 'confirmed' || !treasury || !asset?.eip712 || !options.evm(transfer.network)) {
        return undefined
      }
      return claim({
        environment: transfer.environment,
        idempotencyKey: `sweep:${transfer.id}`,
        chain: transfer.chain,
        network: transfer.network,
        asset: transfer.asset,
        to: treasury,
        amount: transfer.amount,
        sourceAddressId: transfer.address.id,
      })
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
      const pending = await deps.db
        .selectFrom('crypto_sends')
        .selectAll()
        .where('status', '=', 'pending')
        .execute()
      for (const row of pending) {
        const sender = options.evm(row.network)
        if (row.tx_hashes.length > 0 && sender) {
          track(row.id, sender, row.tx_hashes as Hash[])
        } else if (row.tx_hashes.length === 0) {
          // Claimed but never broadcast (the hash is recorded before every broadcast).
          await broadcast(row)
        }
      }
    },
    stop: async () => {
      stopped = true
      await Promise.allSettled([...tracking])
    },
  }
}
