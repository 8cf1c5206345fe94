import { AppError } from '@tollgate/core'
import { sql } from 'kysely'
import { getAddress, isAddress } from 'viem'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import type { AddressPurpose, ChainRegistry, Db, DepositAddress, DepositAddresses } from '../types.js'
import { createIndexBlocks, type IndexBlocks } from './create-index-blocks.js'
import { createDepositKeyDeriver, getBranchKey } from './derive-deposit-key.js'
import type { NetworkSignal } from './look-schedule.js'

type AddressRow = {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  chain: string
  network: string
  address: string
  purpose: DepositAddress['purpose']
  owner_id: string
  created_at: Date
}

/** Maps a `deposit_addresses` row to a {@link DepositAddress}. */
export function toDepositAddress(row: AddressRow): DepositAddress {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    chain: row.chain as ChainName,
    network: row.network,
    address: row.address,
    purpose: row.purpose,
    ownerId: row.owner_id,
    createdAt: row.created_at,
  }
}

/** The columns of {@link toDepositAddress}. */
export const depositAddressColumns = [
  'id',
  'merchant_id',
  'environment',
  'chain',
  'network',
  'address',
  'purpose',
  'owner_id',
  'created_at',
] as const

// The largest non-hardened BIP-32 index; past it a branch is exhausted (2^31 addresses).
const maxIndex = 2 ** 31 - 1

async function nextIndex(db: Db, branch: string): Promise<number> {
  const row = await db
    .insertInto('address_counters')
    .values({ branch, next_index: 1n })
    .onConflict((oc) => oc.column('branch').doUpdateSet({ next_index: sql`address_counters.next_index + 1` }))
    .returning('next_index')
    .executeTakeFirstOrThrow()
  return Number(row.next_index) - 1
}

function assertIndexInRange(branch: string, index: number): number {
  if (index > maxIndex) {
    throw new AppError('internal_error', { message: `address branch ${branch} is exhausted` })
  }
  return index
}

/**
 * Deposit addresses HD-derived from the master seed (docs/rails.md "Chains"): the index is the one
 * the caller reserved (`reserveIndex`, outside its transaction), else one from a block of the
 * branch's counter reserved ahead on `deps.db` ({@link createIndexBlocks}), else, while none is
 * ready, the counter row's next in the caller's transaction. No index, and so no address, is ever
 * given to two owners.
 */
export function createDepositAddresses(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'logger'>,
  options: {
    seed: Uint8Array
    chains: ChainRegistry
    /** Raised with the network of each new address (the watchers of this process re-read theirs). */
    allocated?: NetworkSignal
    /** Where indexes come from (default: blocks of 64 on `deps.db`; tests pass their own). */
    indexBlocks?: IndexBlocks
  },
): DepositAddresses {
  const find = (db: Db, input: { purpose: string; ownerId: string; chain: string }) =>
    db
      .selectFrom('deposit_addresses')
      .select(depositAddressColumns)
      .where('purpose', '=', input.purpose as DepositAddress['purpose'])
      .where('owner_id', '=', input.ownerId)
      .where('chain', '=', input.chain)
      .executeTakeFirst()
  const deriveKey = createDepositKeyDeriver(options.seed)
  const blocks =
    options.indexBlocks ??
    createIndexBlocks(deps.db, {
      onError: (error) => deps.logger.warn({ err: error }, 'deposit address index reservation failed'),
    })
  const branchOf = (input: { environment: KeyEnvironment; chain: ChainName; purpose: AddressPurpose }) => {
    const entry = options.chains.get(input.environment, input.chain)
    if (!entry) {
      throw new AppError('unknown_asset', { context: { network: input.chain, asset: '' } })
    }
    const branch = { family: entry.family, environment: input.environment, purpose: input.purpose }
    return { entry, branch, branchKey: getBranchKey(branch) }
  }
  const derive: DepositAddresses['derive'] = (input) => {
    const { entry, branch, branchKey } = branchOf(input)
    if (input.reserved.branch !== branchKey) {
      throw new AppError('internal_error', {
        message: `index reserved for ${input.reserved.branch}, not ${branchKey}`,
      })
    }
    const key = deriveKey(branch, assertIndexInRange(branchKey, input.reserved.index))
    const values = {
      id: deps.ids.create('addr'),
      merchant_id: input.merchantId,
      environment: input.environment,
      chain: input.chain,
      network: entry.network,
      address: key.address,
      purpose: input.purpose,
      owner_id: input.ownerId,
      derivation_path: key.path,
      created_at: deps.clock.now(),
    }
    return {
      values,
      address: toDepositAddress(values),
      inserted: () => options.allocated?.raise(entry.network),
    }
  }
  return {
    reserveIndex: async (input) => {
      const { branchKey } = branchOf(input)
      const index = await blocks.next(branchKey)
      return index === undefined ? undefined : { branch: branchKey, index }
    },
    allocate: async (db, input) => {
      const existing = input.newOwner ? undefined : await find(db, input)
      if (existing) {
        return toDepositAddress(existing)
      }
      const { branchKey } = branchOf(input)
      const index = input.reserved?.index ?? blocks.take(branchKey) ?? (await nextIndex(db, branchKey))
      const derived = derive({ ...input, reserved: { branch: input.reserved?.branch ?? branchKey, index } })
      const inserted = await db
        .insertInto('deposit_addresses')
        .values(derived.values)
        .onConflict((oc) => oc.columns(['purpose', 'owner_id', 'chain']).doNothing())
        .returning(depositAddressColumns)
        .executeTakeFirst()
      if (inserted) {
        derived.inserted()
      }
      // A concurrent allocate for the same owner won; its address is the one.
      const row = inserted ?? (await find(db, input))
      if (!row) {
        throw new AppError('internal_error', { message: 'deposit address allocation lost its row' })
      }
      return toDepositAddress(row)
    },
    derive,
    find: async (db, input) => {
      const entry = options.chains.get(input.environment, input.chain)
      if (!entry) {
        return undefined
      }
      // EVM addresses are stored checksummed; any casing of the same address finds them.
      const evm = entry.family === 'evm'
      if (evm && !isAddress(input.address, { strict: false })) {
        return undefined
      }
      const row = await db
        .selectFrom('deposit_addresses')
        .select(depositAddressColumns)
        .where('network', '=', entry.network)
        .where('address', '=', evm ? getAddress(input.address) : input.address)
        .executeTakeFirst()
      return row ? toDepositAddress(row) : undefined
    },
  }
}
