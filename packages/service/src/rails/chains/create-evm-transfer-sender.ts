import {
  createEvmHttpTransport,
  createRelayer,
  eip3009Abi,
  type Relayer,
  transferWithAuthorizationTypes,
} from '@tollgate/evm'
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  type Hash,
  keccak256,
  type LocalAccount,
  parseSignature,
  toHex,
} from 'viem'
import type { ChainAsset } from '../types.js'

/**
 * One outbound transfer to broadcast: our send id (the EIP-3009 nonce's seed), asset, recipient,
 * atomic amount, and the key that owns the funds when it is not the treasury (a sweep's deposit key).
 */
export type EvmTransfer = { id: string; asset: ChainAsset; to: string; amount: bigint; owner?: LocalAccount }

/** Broadcasts treasury transfers on one EVM network and waits for their receipts. */
export type EvmTransferSender = {
  treasury: Address
  feePayers: Address[]
  broadcast(transfer: EvmTransfer, onBroadcast: (hash: Hash) => Promise<void>): Promise<Hash>
  waitForReceipt(hash: Hash, timeoutMs: number): Promise<{ hash: Hash; success: boolean }>
  /**
   * What sweeping `amount` of `asset` from `from` needs (docs/rails.md "Sweeps"): the native coin to
   * top the address up with first (plain ERC-20s: twice the estimated gas at the current max fee),
   * and the amount to move (a native coin keeps twice its transfer's gas back); undefined when
   * the gas would eat the whole amount.
   */
  planSweep(input: {
    asset: ChainAsset
    from: string
    to: string
    amount: bigint
  }): Promise<{ topUp: bigint; amount: bigint } | undefined>
  close(): void
}

// Gas of a plain value transfer to an address without code.
const nativeTransferGas = 21_000n

// An authorization outlives any sane stuck-transaction replacement, but not forever.
const authorizationLifetimeSeconds = 24n * 3600n

/**
 * Creates the sender of one EVM network (docs/rails.md "Chains"): USDC-like tokens (EIP-3009) move by
 * an authorization the treasury signs, submitted and paid for by the fee-payer pool through
 * @tollgate/evm's relayer (its nonce is derived from our send id, so a re-broadcast can never pay
 * twice); native coins and other tokens are sent by the treasury itself through a one-key relayer.
 */
export function createEvmTransferSender(options: {
  network: string
  chainId: number
  rpcUrl: string
  treasury: LocalAccount
  feePayers: LocalAccount[]
  pollingIntervalMs?: number
  now?: () => number
}): EvmTransferSender {
  const client = createPublicClient({
    transport: createEvmHttpTransport(options.rpcUrl),
    pollingInterval: options.pollingIntervalMs ?? 500,
  })
  const relayerOptions = {
    network: options.network,
    client,
    pollingIntervalMs: options.pollingIntervalMs ?? 500,
  }
  const pool: Relayer = createRelayer({ ...relayerOptions, accounts: options.feePayers })
  const own: Relayer = createRelayer({ ...relayerOptions, accounts: [options.treasury] })
  const now = options.now ?? Date.now
  const relayerOf = new Map<Hash, Relayer>()
  // One-key relayers of deposit addresses (their own nonces) for sweeps that pay their own gas.
  const ownerRelayers = new Map<string, Relayer>()
  const ownerRelayer = (owner: LocalAccount) => {
    let relayer = ownerRelayers.get(owner.address)
    if (!relayer) {
      relayer = createRelayer({ ...relayerOptions, accounts: [owner] })
      ownerRelayers.set(owner.address, relayer)
    }
    return relayer
  }

  const authorize = async (transfer: EvmTransfer) => {
    const token = transfer.asset.address as Address
    const eip712 = transfer.asset.eip712
    if (!eip712) {
      throw new TypeError('authorize needs an EIP-3009 token')
    }
    const owner = transfer.owner ?? options.treasury
    const message = {
      from: owner.address,
      to: transfer.to as Address,
      value: transfer.amount,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(now() / 1000)) + authorizationLifetimeSeconds,
      nonce: keccak256(toHex(`tollgate:crypto-send:${transfer.id}`)),
    }
    const signature = await owner.signTypedData({
      domain: { ...eip712, chainId: options.chainId, verifyingContract: token },
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    })
    const { r, s, v, yParity } = parseSignature(signature)
    return encodeFunctionData({
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [
        message.from,
        message.to,
        message.value,
        message.validAfter,
        message.validBefore,
        message.nonce,
        Number(v ?? 27n + BigInt(yParity)),
        r,
        s,
      ],
    })
  }

  return {
    treasury: options.treasury.address,
    feePayers: options.feePayers.map((a) => a.address),
    broadcast: async (transfer, onBroadcast) => {
      const { asset } = transfer
      // A sweep of a native coin or a plain ERC-20 is sent by the deposit key itself (gas at the address).
      let relayer = transfer.owner && !asset.eip712 ? ownerRelayer(transfer.owner) : own
      let request: { to: Address; data: `0x${string}`; value?: bigint }
      if (asset.kind === 'native') {
        request = { to: transfer.to as Address, data: '0x', value: transfer.amount }
      } else if (asset.eip712) {
        relayer = pool
        request = { to: asset.address as Address, data: await authorize(transfer) }
      } else {
        request = {
          to: asset.address as Address,
          data: encodeFunctionData({
            abi: erc20Abi,
            functionName: 'transfer',
            args: [transfer.to as Address, transfer.amount],
          }),
        }
      }
      const sent = await relayer.send(request, { onBroadcast })
      relayerOf.set(sent.hash, relayer)
      return sent.hash
    },
    waitForReceipt: async (hash, timeoutMs) => {
      const receipt = await (relayerOf.get(hash) ?? pool).waitForReceipt(hash, { timeoutMs })
      relayerOf.delete(hash)
      return { hash: receipt.transactionHash, success: receipt.status === 'success' }
    },
    planSweep: async ({ asset, from, to, amount }) => {
      const { maxFeePerGas } = await client.estimateFeesPerGas()
      if (asset.kind === 'native') {
        const reserve = nativeTransferGas * maxFeePerGas * 2n
        return amount > reserve ? { topUp: 0n, amount: amount - reserve } : undefined
      }
      const gas = await client.estimateContractGas({
        address: asset.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Address, amount],
        account: from as Address,
      })
      return { topUp: gas * maxFeePerGas * 2n, amount }
    },
    close: () => {
      pool.close()
      own.close()
      for (const relayer of ownerRelayers.values()) {
        relayer.close()
      }
      ownerRelayers.clear()
    },
  }
}
