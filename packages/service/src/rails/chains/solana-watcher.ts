import { type Address, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { ChainAsset, ChainEntry, DepositAddress } from '../types.js'
import {
  type IncomingHub,
  type ObservedTransfer,
  recordIncomingTransfer,
  setIncomingStatus,
} from './incoming-store.js'
import type { JsonRpc } from './json-rpc.js'
import { createSweptAccounts } from './swept-accounts.js'
import { createWatcherLooks, type WatcherLookOptions } from './watched-addresses.js'

const associatedTokenProgram = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL' as Address
/** getMultipleAccounts takes at most 100 accounts per call. */
const batchSize = 100

type Watched = { account: string; owner: DepositAddress; asset: ChainAsset; last: bigint | undefined }
type RpcAccount = { lamports: number | bigint; data: [string, string] } | null
type TokenBalance = { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string } }
type RpcTransaction = {
  slot: number
  meta: {
    err: unknown
    preBalances: (number | bigint)[]
    postBalances: (number | bigint)[]
    preTokenBalances?: TokenBalance[]
    postTokenBalances?: TokenBalance[]
  } | null
  transaction: { message: { accountKeys: string[] } }
}

/** Options of {@link createSolanaWatcher}. */
export type SolanaWatcherOptions = {
  entry: ChainEntry
  rpc: JsonRpc
  hub: IncomingHub
} & WatcherLookOptions

/** What one Solana poll did: accounts read, accounts whose balance moved, transfers found and new. */
export type SolanaPollResult = {
  slot: bigint
  accounts: number
  changed: number
  found: number
  recorded: number
  /** Nothing watched and no database read due: the poll made no RPC call (slot is the last one read). */
  idle?: true
}

/** A Solana watcher: `poll()` reads every watched account once. */
export type SolanaWatcher = { poll(): Promise<SolanaPollResult>; watchedCount(): number }

/** The associated token account of `owner` for an SPL `asset` (under the asset's token program). */
export async function getAssociatedTokenAccount(owner: string, asset: ChainAsset): Promise<string> {
  const encoder = getAddressEncoder()
  const [ata] = await getProgramDerivedAddress({
    programAddress: associatedTokenProgram,
    seeds: [
      encoder.encode(owner as Address),
      encoder.encode((asset.tokenProgram ?? '') as Address),
      encoder.encode((asset.address ?? '') as Address),
    ],
  })
  return ata
}

// The amount of a token account (u64 little-endian at byte 64) or, for a system account, its lamports.
function readAmount(account: RpcAccount, kind: ChainAsset['kind']): bigint {
  if (!account) {
    return 0n
  }
  if (kind === 'native') {
    return BigInt(account.lamports)
  }
  const bytes = Buffer.from(account.data[0], 'base64')
  return bytes.length >= 8 ? bytes.readBigUInt64LE(0) : 0n
}

/**
 * Watches Solana deposit addresses (docs/rails.md "Chains"): each poll reads the token accounts (and
 * the owner for SOL) of every watched address with `getMultipleAccounts`, 100 per call, sliced to
 * the 8-byte amount; only accounts whose balance moved cost more: their new signatures, and one
 * `getTransaction` per signature not yet recorded, whose balance deltas are the transfers.
 * After a restart the first poll looks up every funded account once (nothing is missed; the
 * (network, signature, account index) key records nothing twice).
 */
export function createSolanaWatcher(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'logger'>,
  options: SolanaWatcherOptions,
): SolanaWatcher {
  const { entry, rpc, hub } = options
  // An address found late is still checked: its account starts unknown, so a funded one has its
  // history read once (see `poll`), and nothing is missed.
  const { watched: watchedAddresses, seenSchedule } = createWatcherLooks(deps, {
    ...options,
    network: entry.network,
    normalize: (a) => a,
  })
  // A balance is not a change counter: a sweep (A → 0) and a deposit of the same amount (0 → A)
  // between two polls leave it unchanged. So an account swept since the last look is read as
  // unknown at the next poll, and a funded one has its history checked (docs/rails.md "Sweeps").
  const swept = createSweptAccounts(deps, {
    network: entry.network,
    signal: options.addressSignal ? hub.swept : undefined,
    ...(options.backstopMs === undefined ? {} : { backstopMs: options.backstopMs }),
  })
  let pendingSeen: number | undefined
  // Spec assets only: SOL and the tokens the ledger credits (USDC, USDT).
  const assets = entry.assets.filter(
    (a) => a.kind === 'native' || (a.kind === 'spl' && a.ledgerCurrency !== null),
  )
  const accounts: Watched[] = []
  const tokens: Watched[] = []
  // Every watched account by `{address id}:{asset}`, as the sweeps name them.
  const byOwnerAsset = new Map<string, Watched>()

  const findTransfers = async (watched: Watched, slot: bigint): Promise<ObservedTransfer[]> => {
    const signatures = (await rpc.request('getSignaturesForAddress', [
      watched.account,
      { limit: 100, commitment: 'confirmed' },
    ])) as {
      signature: string
      err: unknown
    }[]
    const candidates = signatures.filter((s) => s.err === null).map((s) => s.signature)
    if (candidates.length === 0) {
      return []
    }
    const known = await deps.db
      .selectFrom('incoming_transfers')
      .select('tx_hash')
      .where('network', '=', entry.network)
      .where('address_id', '=', watched.owner.id)
      .where('asset', '=', watched.asset.symbol)
      .where('tx_hash', 'in', candidates)
      .execute()
    const knownSet = new Set(known.map((k) => k.tx_hash))
    const found: ObservedTransfer[] = []
    for (const signature of candidates.filter((s) => !knownSet.has(s))) {
      const tx = (await rpc.request('getTransaction', [
        signature,
        { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
      ])) as RpcTransaction | null
      const keys = tx?.transaction.message.accountKeys ?? []
      const index = keys.indexOf(watched.account)
      if (!tx?.meta || tx.meta.err !== null || index === -1) {
        continue
      }
      const balanceAt = (list: TokenBalance[] | undefined) =>
        BigInt(list?.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? '0')
      const delta =
        watched.asset.kind === 'native'
          ? BigInt(tx.meta.postBalances[index] ?? 0) - BigInt(tx.meta.preBalances[index] ?? 0)
          : balanceAt(tx.meta.postTokenBalances) - balanceAt(tx.meta.preTokenBalances)
      if (delta > 0n) {
        found.push({
          address: watched.owner,
          asset: watched.asset.symbol,
          amount: delta,
          decimals: watched.asset.decimals,
          txHash: signature,
          // The receiving account's index in the transaction: unique per (signature, account).
          logIndex: index,
          fromAddress: keys[0] ?? null,
          blockNumber: BigInt(tx.slot),
          blockHash: null,
          confirmations: Number(slot - BigInt(tx.slot) + 1n),
        })
      }
    }
    return found
  }

  // Seen transfers: confirmed at the chain's count of slots; reverted when the cluster forgot the signature.
  const trackSeen = async (slot: bigint, recorded: number) => {
    if (pendingSeen === 0 && recorded === 0 && !seenSchedule.due()) {
      return
    }
    seenSchedule.looked()
    const seen = await deps.db
      .selectFrom('incoming_transfers')
      .select(['id', 'tx_hash', 'block_number', 'confirmations'])
      .where('network', '=', entry.network)
      .where('status', '=', 'seen')
      .execute()
    pendingSeen = seen.length
    for (let i = 0; i < seen.length; i += 256) {
      const chunk = seen.slice(i, i + 256)
      const { value } = (await rpc.request('getSignatureStatuses', [
        chunk.map((t) => t.tx_hash),
        { searchTransactionHistory: true },
      ])) as { value: (object | null)[] }
      for (const [j, transfer] of chunk.entries()) {
        const confirmations = Number(slot - BigInt(transfer.block_number ?? '0') + 1n)
        const status =
          value[j] === null ? 'reverted' : confirmations >= entry.confirmations ? 'confirmed' : 'seen'
        if (status !== 'seen' || confirmations !== transfer.confirmations) {
          await inTransaction(deps.db, (trx) =>
            setIncomingStatus(trx, deps, hub, {
              id: transfer.id,
              status,
              confirmations: status === 'reverted' ? 0 : confirmations,
            }),
          )
        }
      }
    }
  }

  // SOL is read from the owner accounts themselves, a slice per poll in round robin (see `poll`).
  const owners: Watched[] = []
  let ownerCursor = 0

  let lastSlot = 0n

  const poll = async (): Promise<SolanaPollResult> => {
    // No account to read, no *seen* transfer and no read due: nothing to ask the node (an idle
    // sandbox sent a getSlot per poll only to date a look at *seen* transfers it did not make).
    if (accounts.length === 0 && pendingSeen === 0 && !watchedAddresses.due() && !seenSchedule.due()) {
      return { slot: lastSlot, accounts: 0, changed: 0, found: 0, recorded: 0, idle: true }
    }
    for (const owner of (await watchedAddresses.refresh()) ?? []) {
      for (const asset of assets) {
        if (asset.kind === 'native') {
          const watched = { account: owner.address, owner, asset, last: undefined }
          owners.push(watched)
          accounts.push(watched)
          byOwnerAsset.set(`${owner.id}:${asset.symbol}`, watched)
        } else {
          const watched = {
            account: await getAssociatedTokenAccount(owner.address, asset),
            owner,
            asset,
            last: undefined,
          }
          tokens.push(watched)
          accounts.push(watched)
          byOwnerAsset.set(`${owner.id}:${asset.symbol}`, watched)
        }
      }
    }
    for (const key of await swept.refresh()) {
      const watched = byOwnerAsset.get(key)
      if (watched) {
        watched.last = undefined
      }
    }
    // Every token account each poll, plus as many owner accounts (SOL) as fill the token accounts'
    // last batch and one batch more: ceil(tokens/100) + 1 calls, and no getSlot (the answers'
    // context slot is the poll's slot). With N addresses and one SPL asset that is ceil(N/100) + 1;
    // SOL is then read every ceil(N / room) polls, all of it each poll while it fits.
    const room = (Math.ceil(tokens.length / batchSize) + 1) * batchSize - tokens.length
    let ownersNow = owners
    if (owners.length > room) {
      ownersNow = Array.from({ length: room }, (_, i) => owners[(ownerCursor + i) % owners.length] as Watched)
      ownerCursor = (ownerCursor + room) % owners.length
    }
    const read = [...tokens, ...ownersNow]
    const batches: Watched[][] = []
    for (let i = 0; i < read.length; i += batchSize) {
      batches.push(read.slice(i, i + batchSize))
    }
    const answers = (await Promise.all(
      batches.map((batch) =>
        rpc.request('getMultipleAccounts', [
          batch.map((w) => w.account),
          { encoding: 'base64', dataSlice: { offset: 64, length: 8 }, commitment: 'confirmed' },
        ]),
      ),
    )) as { context: { slot: number | bigint }; value: RpcAccount[] }[]
    // The oldest context of the answers (confirmations are never over-counted); getSlot when nothing is watched.
    const slots = answers.map((a) => BigInt(a.context.slot))
    const slot =
      slots.length > 0
        ? slots.reduce((min, s) => (s < min ? s : min))
        : BigInt((await rpc.request('getSlot', [{ commitment: 'confirmed' }])) as number)
    lastSlot = slot
    const result = { slot, accounts: read.length, changed: 0, found: 0, recorded: 0 }
    for (const [b, batch] of batches.entries()) {
      for (const [i, watched] of batch.entries()) {
        const amount = readAmount(answers[b]?.value[i] ?? null, watched.asset.kind)
        // Unknown (first poll after a start) and funded counts as changed: its history is checked once.
        if (amount === watched.last || (watched.last === undefined && amount === 0n)) {
          watched.last = amount
          continue
        }
        result.changed += 1
        const transfers = await findTransfers(watched, slot)
        for (const observed of transfers) {
          const { created } = await inTransaction(deps.db, (trx) =>
            recordIncomingTransfer(trx, deps, hub, { observed, required: entry.confirmations }),
          )
          result.recorded += created ? 1 : 0
        }
        result.found += transfers.length
        watched.last = amount
      }
    }
    await trackSeen(slot, result.recorded)
    return result
  }
  return { poll, watchedCount: () => accounts.length }
}
