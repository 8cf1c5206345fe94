import type { Deps } from '../../deps.js'
import type { ChainName } from '../../reference/chains.js'
import type {
  AddressPurpose,
  Db,
  DepositAddress,
  IncomingTransfer,
  IncomingTransferHandler,
  IncomingTransferStatus,
} from '../types.js'
import { createNetworkSignal, type NetworkSignal } from './look-schedule.js'

/** A transfer a watcher (or the simulate route) found, before it is recorded. */
export type ObservedTransfer = {
  address: DepositAddress
  asset: string
  amount: bigint
  decimals: number
  txHash: string
  logIndex: number
  fromAddress: string | null
  blockNumber: bigint | null
  blockHash: string | null
  confirmations: number
}

/** Subscribers of incoming transfers by address purpose, called inside the recording transaction. */
export type IncomingHub = {
  subscribe(purpose: AddressPurpose, handler: IncomingTransferHandler): () => void
  deliver(db: Db, transfer: IncomingTransfer): Promise<void>
  /** Raised (by network) when a *seen* transfer is recorded in this process: the watchers track it. */
  seen?: NetworkSignal
  /** Raised (by network) when a sweep is settled in this process: the Solana watcher re-reads the account. */
  swept?: NetworkSignal
}

/** Creates the subscriber registry of the incoming transfers. */
export function createIncomingHub(): IncomingHub {
  const handlers = new Map<AddressPurpose, Set<IncomingTransferHandler>>()
  return {
    seen: createNetworkSignal(),
    swept: createNetworkSignal(),
    subscribe: (purpose, handler) => {
      const set = handlers.get(purpose) ?? new Set()
      handlers.set(purpose, set)
      set.add(handler)
      return () => {
        set.delete(handler)
      }
    },
    deliver: async (db, transfer) => {
      for (const handler of handlers.get(transfer.address.purpose) ?? []) {
        await handler(db, transfer)
      }
    },
  }
}

const columns = [
  'incoming_transfers.id',
  'incoming_transfers.environment',
  'incoming_transfers.chain',
  'incoming_transfers.network',
  'asset',
  'amount',
  'decimals',
  'tx_hash',
  'log_index',
  'from_address',
  'to_address',
  'block_number',
  'confirmations',
  'status',
  'seen_at',
  'confirmed_at',
  'deposit_addresses.id as address_id',
  'deposit_addresses.merchant_id',
  'deposit_addresses.address',
  'deposit_addresses.purpose',
  'deposit_addresses.owner_id',
  'deposit_addresses.created_at as address_created_at',
] as const

/** Loads incoming transfers (with their deposit address) matching `where`, oldest first. */
export async function selectIncomingTransfers(
  db: Db,
  filter: { ids?: string[]; addressIds?: string[]; environment?: 'test' | 'live' },
): Promise<IncomingTransfer[]> {
  let query = db
    .selectFrom('incoming_transfers')
    .innerJoin('deposit_addresses', 'deposit_addresses.id', 'incoming_transfers.address_id')
    .select(columns)
    .orderBy('seen_at')
    .orderBy('incoming_transfers.id')
  if (filter.ids) {
    query = query.where('incoming_transfers.id', 'in', filter.ids)
  }
  if (filter.addressIds) {
    query = query.where('incoming_transfers.address_id', 'in', filter.addressIds)
  }
  if (filter.environment) {
    query = query.where('incoming_transfers.environment', '=', filter.environment)
  }
  const rows = await query.execute()
  return rows.map((row) => ({
    id: row.id,
    environment: row.environment,
    chain: row.chain as ChainName,
    network: row.network,
    asset: row.asset,
    amount: BigInt(row.amount),
    decimals: row.decimals,
    txHash: row.tx_hash,
    logIndex: row.log_index,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    confirmations: row.confirmations,
    status: row.status,
    seenAt: row.seen_at,
    confirmedAt: row.confirmed_at,
    address: {
      id: row.address_id,
      merchantId: row.merchant_id,
      environment: row.environment,
      chain: row.chain as ChainName,
      network: row.network,
      address: row.address,
      purpose: row.purpose,
      ownerId: row.owner_id,
      createdAt: row.address_created_at,
    },
  }))
}

async function loadOne(db: Db, id: string): Promise<IncomingTransfer> {
  const [transfer] = await selectIncomingTransfers(db, { ids: [id] })
  if (!transfer) {
    throw new TypeError(`incoming transfer ${id} vanished inside its transaction`)
  }
  return transfer
}

/**
 * Records `observed` as *seen* (once per network, tx hash and log index) and delivers it, then
 * *confirmed* when it already has `required` confirmations; all in `db` (the caller's transaction).
 * Returns the transfer as stored (an earlier record when it was already known) and whether it is new.
 */
export async function recordIncomingTransfer(
  db: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  hub: IncomingHub,
  input: { observed: ObservedTransfer; required: number },
): Promise<{ transfer: IncomingTransfer; created: boolean }> {
  const { observed } = input
  const now = deps.clock.now()
  const inserted = await db
    .insertInto('incoming_transfers')
    .values({
      id: deps.ids.create('itx'),
      environment: observed.address.environment,
      chain: observed.address.chain,
      network: observed.address.network,
      asset: observed.asset,
      amount: observed.amount,
      decimals: observed.decimals,
      tx_hash: observed.txHash,
      log_index: observed.logIndex,
      from_address: observed.fromAddress,
      to_address: observed.address.address,
      block_number: observed.blockNumber,
      block_hash: observed.blockHash,
      confirmations: observed.confirmations,
      status: 'seen',
      address_id: observed.address.id,
      seen_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['network', 'tx_hash', 'log_index']).doNothing())
    .returning('id')
    .executeTakeFirst()
  if (!inserted) {
    const existing = await db
      .selectFrom('incoming_transfers')
      .select('id')
      .where('network', '=', observed.address.network)
      .where('tx_hash', '=', observed.txHash)
      .where('log_index', '=', observed.logIndex)
      .executeTakeFirstOrThrow()
    return { transfer: await loadOne(db, existing.id), created: false }
  }
  hub.seen?.raise(observed.address.network)
  const seen = await loadOne(db, inserted.id)
  await hub.deliver(db, seen)
  if (observed.confirmations >= input.required) {
    const confirmed = await setIncomingStatus(db, deps, hub, {
      id: seen.id,
      status: 'confirmed',
      confirmations: observed.confirmations,
    })
    return { transfer: confirmed ?? seen, created: true }
  }
  return { transfer: seen, created: true }
}

/**
 * Moves a *seen* transfer to `confirmed` or `reverted` (or only updates its confirmation count and
 * block when `status` is `seen`) and delivers a status change. Returns undefined when the transfer
 * was no longer *seen* (another poll got there first): nothing is delivered twice.
 */
export async function setIncomingStatus(
  db: Db,
  deps: Pick<Deps, 'clock'>,
  hub: IncomingHub,
  input: {
    id: string
    status: IncomingTransferStatus
    confirmations: number
    block?: { number: bigint; hash: string }
  },
): Promise<IncomingTransfer | undefined> {
  const now = deps.clock.now()
  const updated = await db
    .updateTable('incoming_transfers')
    .set({
      status: input.status,
      confirmations: input.confirmations,
      updated_at: now,
      ...(input.status === 'confirmed' ? { confirmed_at: now } : {}),
      ...(input.status === 'reverted' ? { reverted_at: now } : {}),
      ...(input.block ? { block_number: input.block.number, block_hash: input.block.hash } : {}),
    })
    .where('id', '=', input.id)
    .where('status', '=', 'seen')
    .returning('id')
    .executeTakeFirst()
  if (!updated) {
    return undefined
  }
  const transfer = await loadOne(db, updated.id)
  if (input.status !== 'seen') {
    await hub.deliver(db, transfer)
  }
  return transfer
}
