import { randomBytes } from 'node:crypto'
import { AppError } from '@tollgate/core'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { ChainRegistry, DepositAddresses, IncomingTransfers } from '../types.js'
import {
  type IncomingHub,
  recordIncomingTransfer,
  selectIncomingTransfers,
  setIncomingStatus,
} from './incoming-store.js'
import type { JsonRpc } from './json-rpc.js'
import { createKnownTransactionReader, createKnownTransactionRecorder } from './record-known-transaction.js'

/**
 * The incoming-transfer rail: subscriptions (delivered inside the recording transaction), the list of
 * an address's transfers, and `simulate` for chains without a node, which records through the same
 * path as the watchers (seen, then confirmed once `confirmations` reaches the chain's count; calling
 * it again with the same `txHash` and more confirmations confirms a seen one).
 */
export function createIncomingTransfers(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  options: {
    hub: IncomingHub
    chains: ChainRegistry
    addresses: DepositAddresses
    /** JSON-RPC of each network with a node (for `recordTransaction` and `readTransaction`). */
    rpcOf?: (network: string) => JsonRpc | undefined
  },
): IncomingTransfers {
  const { hub, chains, addresses } = options
  return {
    subscribe: hub.subscribe,
    recordTransaction: createKnownTransactionRecorder(deps, {
      hub,
      chains,
      addresses,
      rpcOf: options.rpcOf ?? (() => undefined),
    }),
    readTransaction: createKnownTransactionReader({ chains, rpcOf: options.rpcOf ?? (() => undefined) }),
    list: (db, input) =>
      input.addressIds.length === 0
        ? Promise.resolve([])
        : selectIncomingTransfers(db, { addressIds: input.addressIds, environment: input.environment }),
    simulate: async (input) => {
      const entry = chains.get(input.environment, input.chain)
      const asset = chains.findAsset(input.environment, input.chain, input.asset)
      if (!entry || !asset) {
        throw new AppError('unknown_asset', {
          context: { network: input.chain, asset: input.asset },
          message: `${input.asset} is not an asset of ${input.chain}`,
        })
      }
      if (entry.hasNode) {
        throw new AppError('validation_error', {
          context: { param: 'chain' },
          message: `${input.chain} runs on the devnet here: pay the address on the chain instead of simulating`,
        })
      }
      if (input.amount <= 0n || !Number.isSafeInteger(input.confirmations) || input.confirmations < 0) {
        throw new AppError('validation_error', {
          message: 'amount must be positive and confirmations a count',
        })
      }
      return inTransaction(deps.db, async (trx) => {
        const address = await addresses.find(trx, {
          environment: 'test',
          chain: input.chain,
          address: input.address,
        })
        if (!address) {
          throw new AppError('not_found', {
            context: { param: 'address' },
            message: `No deposit address ${input.address} on ${input.chain}`,
          })
        }
        const { transfer } = await recordIncomingTransfer(trx, deps, hub, {
          required: entry.confirmations,
          observed: {
            address,
            asset: asset.symbol,
            amount: input.amount,
            decimals: asset.decimals,
            txHash: input.txHash ?? `sim_${randomBytes(16).toString('hex')}`,
            logIndex: 0,
            fromAddress: null,
            blockNumber: null,
            blockHash: null,
            confirmations: input.confirmations,
          },
        })
        if (transfer.status !== 'seen' || input.confirmations <= transfer.confirmations) {
          return transfer
        }
        const status = input.confirmations >= entry.confirmations ? 'confirmed' : 'seen'
        return (
          (await setIncomingStatus(trx, deps, hub, {
            id: transfer.id,
            status,
            confirmations: input.confirmations,
          })) ?? transfer
        )
      })
    },
  }
}
