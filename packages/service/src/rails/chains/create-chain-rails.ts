import { randomBytes } from 'node:crypto'
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit'
import { hexToBytes } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import { enqueueJob } from '../../jobs/enqueue-job.js'
import type { ChainName } from '../../reference/chains.js'
import type { CryptoSender, Rails } from '../types.js'
import { createChainRegistry, type RailsNetwork } from './create-chain-registry.js'
import { createCryptoSender } from './create-crypto-sender.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { createEvmTransferSender, type EvmTransferSender } from './create-evm-transfer-sender.js'
import { createIncomingTransfers } from './create-incoming-transfers.js'
import { createIndexBlocks } from './create-index-blocks.js'
import { createSolanaTransferSender, type SolanaTransferSender } from './create-solana-transfer-sender.js'
import { deriveEd25519Key, deriveSecp256k1Key } from './derive-deposit-key.js'
import { createEvmWatcher } from './evm-watcher.js'
import { createIncomingHub } from './incoming-store.js'
import { createJsonRpc, type JsonRpc } from './json-rpc.js'
import { createNetworkSignal } from './look-schedule.js'
import { createOperatingKeys, type OperatingKeyOverrides } from './operating-keys.js'
import { postSweepLedger } from './post-sweep-ledger.js'
import { sweepJobKind } from './run-sweep-job.js'
import { createSolanaWatcher } from './solana-watcher.js'
import { startWatchLoop, type WatchLoop } from './watch-loop.js'

/** Options of {@link createChainRails} (the chain part of `RailsOptions`). */
export type ChainRailsOptions = {
  /** 64-byte master seed (hex) of deposit addresses; a random one per process when absent (tests only). */
  masterSeed?: string
  networks?: Record<string, RailsNetwork>
  /** Confirmation counts replacing the reference table's (tests of the seen state). */
  confirmations?: Partial<Record<KeyEnvironment, Partial<Record<ChainName, number>>>>
  /** Watcher poll interval (ms; default 1000, the sandbox uses 250). */
  pollIntervalMs?: number
  /** Treasury and fee-payer keys per environment replacing the ones derived from the seed. */
  operatingKeys?: OperatingKeyOverrides
  /** How long a process owns a pending crypto send before another may resume it (ms; default 30,000). */
  sendLeaseMs?: number
  /**
   * Deposit-address indexes reserved per counter update (default 64; docs/rails.md "Deposit
   * addresses"); 1 takes each index from the counter in the allocating transaction.
   */
  addressIndexBlockSize?: number
}

/** The chain rails: registry, deposit addresses, incoming transfers, outbound crypto, and the watchers started by `start()`. */
export type ChainRails = Pick<Rails, 'chains' | 'addresses' | 'incoming' | 'crypto' | 'start' | 'stop'>

/**
 * Builds the chain part of the rails (docs/rails.md "Chains"). Every network of `networks` gets a
 * watcher on `start()`; without `networks` every chain is simulate-only and nothing polls.
 */
export function createChainRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: ChainRailsOptions = {},
): ChainRails {
  const seed = options.masterSeed ? hexToBytes(`0x${options.masterSeed.replace(/^0x/, '')}`) : randomBytes(64)
  const chains = createChainRegistry({
    ...(options.networks ? { networks: options.networks } : {}),
    ...(options.confirmations ? { confirmations: options.confirmations } : {}),
  })
  const hub = createIncomingHub()
  // Raised on each allocation, so the watchers of this process re-read their addresses at once.
  const addressSignal = createNetworkSignal()
  const indexBlocks = createIndexBlocks(deps.db, {
    ...(options.addressIndexBlockSize === undefined ? {} : { blockSize: options.addressIndexBlockSize }),
    onError: (error) => deps.logger.warn({ err: error }, 'deposit address index reservation failed'),
  })
  const addresses = createDepositAddresses(deps, { seed, chains, allocated: addressSignal, indexBlocks })
  const rpcs = new Map<string, JsonRpc>()
  const rpcOf = (network: string) => {
    const rpcUrl = options.networks?.[network]?.rpcUrl
    if (!rpcUrl) {
      return undefined
    }
    const rpc = rpcs.get(network) ?? createJsonRpc(rpcUrl, { network })
    rpcs.set(network, rpc)
    return rpc
  }
  const incoming = createIncomingTransfers(deps, { hub, chains, addresses, rpcOf })
  const environmentOf = (network: string): KeyEnvironment =>
    chains.getByNetwork('live', network) ? 'live' : 'test'
  const operatingKeys = createOperatingKeys(seed, options.operatingKeys)
  const senders = new Map<string, EvmTransferSender>()
  const evmSender = (network: string) => {
    const rpcUrl = options.networks?.[network]?.rpcUrl
    if (!rpcUrl || !network.startsWith('eip155:')) {
      return undefined
    }
    let sender = senders.get(network)
    if (!sender) {
      const keys = operatingKeys.evm(environmentOf(network))
      sender = createEvmTransferSender({
        network,
        chainId: Number(network.slice('eip155:'.length)),
        rpcUrl,
        treasury: keys.treasury,
        feePayers: keys.feePayers,
        pollingIntervalMs: options.pollIntervalMs ?? 1_000,
      })
      senders.set(network, sender)
    }
    return sender
  }
  const solanaSenders = new Map<string, SolanaTransferSender>()
  const solanaSender = (network: string) => {
    const rpcUrl = options.networks?.[network]?.rpcUrl
    if (!rpcUrl || !network.startsWith('solana:')) {
      return undefined
    }
    let sender = solanaSenders.get(network)
    if (!sender) {
      const keys = operatingKeys.solana(environmentOf(network))
      sender = createSolanaTransferSender({
        rpc: createJsonRpc(rpcUrl, { network }),
        treasury: keys.signer,
        treasuryAddress: keys.address,
      })
      solanaSenders.set(network, sender)
    }
    return sender
  }
  const treasuryOf = (environment: KeyEnvironment, chain: ChainName) => {
    const family = chains.get(environment, chain)?.family
    if (family === 'solana') {
      return operatingKeys.solana(environment).address
    }
    return family === 'evm' ? operatingKeys.evm(environment).treasury.address : undefined
  }
  const derivationPathOf = async (addressId: string) =>
    (
      await deps.db
        .selectFrom('deposit_addresses')
        .select('derivation_path')
        .where('id', '=', addressId)
        .executeTakeFirstOrThrow()
    ).derivation_path
  const depositKeyOf = async (addressId: string) =>
    privateKeyToAccount(deriveSecp256k1Key(seed, await derivationPathOf(addressId)))
  const solanaDepositKeyOf = async (addressId: string) =>
    createKeyPairSignerFromPrivateKeyBytes(deriveEd25519Key(seed, await derivationPathOf(addressId)))
  const sender = createCryptoSender(deps, {
    chains,
    evm: evmSender,
    solana: solanaSender,
    treasuryOf,
    depositKeyOf,
    solanaDepositKeyOf,
    ...(options.sendLeaseMs === undefined ? {} : { leaseMs: options.sendLeaseMs }),
  })
  // A confirmed transfer on a chain the rails can sign on gets its sweep job in the transaction that
  // confirms it; a confirmed sweep posts its custody legs in the transaction that records it.
  for (const purpose of ['session', 'deposit', 'x402'] as const) {
    hub.subscribe(purpose, async (db, transfer) => {
      if (
        transfer.status === 'confirmed' &&
        (evmSender(transfer.network) || solanaSender(transfer.network))
      ) {
        await enqueueJob(db, deps, {
          kind: sweepJobKind,
          payload: { transferId: transfer.id },
          key: transfer.id,
        })
      }
    })
  }
  sender.onSettled(async (db, send) => {
    if (send.status === 'confirmed' && send.idempotencyKey.startsWith('sweep:')) {
      // Only the Solana watcher reads it: it notices transfers by balance, which a sweep and a
      // same-amount deposit between two polls leave unchanged; the EVM watcher reads logs.
      const entry = chains.get(send.environment, send.chain)
      if (entry?.family === 'solana') {
        hub.swept?.raise(entry.network)
      }
    }
    await postSweepLedger(deps, db, chains, send)
  })
  const crypto: CryptoSender = {
    send: sender.send,
    get: sender.get,
    onSettled: sender.onSettled,
    sweep: sender.sweep,
    openTokenAccount: async (input) => {
      const entry = chains.get(input.environment, input.chain)
      const asset = entry?.assets.find((a) => a.symbol === input.asset)
      const solana = entry ? solanaSender(entry.network) : undefined
      if (entry?.family !== 'solana' || !asset || asset.kind === 'native' || !solana) {
        return 'not_needed'
      }
      return (await solana.openTokenAccount(input.owner, asset)).status
    },
    getTreasury: (environment, chain) => {
      const entry = chains.get(environment, chain)
      if (entry?.family === 'solana') {
        // The Solana treasury pays its own fees: no separate fee payers.
        return { address: operatingKeys.solana(environment).address, feePayers: [] }
      }
      if (entry?.family !== 'evm') {
        return undefined
      }
      const keys = operatingKeys.evm(environment)
      return { address: keys.treasury.address, feePayers: keys.feePayers.map((k) => k.address) }
    },
  }
  let loops: WatchLoop[] = []
  let started = false
  return {
    chains,
    addresses,
    incoming,
    crypto,
    start: async () => {
      if (started) {
        return
      }
      started = true
      await sender.start()
      for (const entry of chains.list('test').concat(chains.list('live'))) {
        const network = options.networks?.[entry.network]
        if (!network || (entry.family !== 'evm' && entry.family !== 'solana')) {
          continue
        }
        const rpc = createJsonRpc(network.rpcUrl, { network: entry.network })
        const watcher =
          entry.family === 'evm'
            ? createEvmWatcher(deps, {
                entry,
                rpc,
                hub,
                ignoreFrom: [
                  operatingKeys.evm(environmentOf(entry.network)).treasury.address,
                  ...operatingKeys.evm(environmentOf(entry.network)).feePayers.map((k) => k.address),
                ],
                addressSignal,
              })
            : createSolanaWatcher(deps, { entry, rpc, hub, addressSignal })
        loops.push(
          startWatchLoop(watcher.poll, {
            intervalMs: options.pollIntervalMs ?? 1_000,
            logger: deps.logger,
            name: entry.network,
          }),
        )
      }
    },
    stop: async () => {
      started = false
      const running = loops
      loops = []
      await Promise.all(running.map((loop) => loop.stop()))
      // Closing the relayers rejects their receipt waits, so the sender's stop returns at once.
      for (const s of senders.values()) {
        s.close()
      }
      senders.clear()
      await sender.stop()
    },
  }
}
