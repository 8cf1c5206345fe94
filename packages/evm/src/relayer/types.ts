import type { Address, Hash, Hex, TransactionReceipt } from 'viem'

/** A transaction for the relayer to pay for and send. `gas` is the explicit gas limit. */
export type RelayerTransactionRequest = { to: Address; data: Hex; gas?: bigint; value?: bigint }

/** Options of {@link Relayer.send}. */
export type RelayerSendOptions = {
  /**
   * Called with the transaction hash before each broadcast (the first one and every fee-bumped
   * replacement), so the caller can record it durably before the node may mine it.
   */
  onBroadcast?: (hash: Hash) => Promise<void> | void
}

/** What {@link Relayer.send} returns once the node accepted (or may have accepted) the transaction. */
export type RelayerSentTransaction = { hash: Hash; from: Address; nonce: number }

/** A relayer's native balance (wei) per fee-payer address. */
export type RelayerBalance = { address: Address; balance: bigint }

/**
 * Pays gas for settlement transactions on one network from a pool of fee-payer keys: local
 * nonces, explicit gas limits, fee caps, bounded receipt waits, stuck-transaction replacement.
 */
export interface Relayer {
  readonly network: string
  send(request: RelayerTransactionRequest, options?: RelayerSendOptions): Promise<RelayerSentTransaction>
  /**
   * Waits for the receipt of `hash` (or of a fee-bumped replacement of it) for at most
   * `timeoutMs`; throws `relayer_receipt_timeout` after that.
   */
  waitForReceipt(hash: Hash, options: { timeoutMs: number }): Promise<TransactionReceipt>
  getAddresses(): Address[]
  getBalances(): Promise<RelayerBalance[]>
  /** Stops background timers (the receipt watcher); pending waits reject. */
  close(): void
}
