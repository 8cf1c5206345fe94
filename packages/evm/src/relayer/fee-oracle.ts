import { AppError } from '@tollgate/core'
import type { PublicClient } from 'viem'

/** EIP-1559 fee fields of a transaction (wei per gas). */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** The RPC capability {@link FeeOracle} needs. */
export type FeeClient = Pick<PublicClient, 'getBlock' | 'estimateMaxPriorityFeePerGas'>

/** Options of {@link FeeOracle}. */
export type FeeOracleOptions = {
  network: string
  /** Never pay more than this per gas (wei); a base fee above it fails sends clearly. */
  maxFeePerGasCap?: bigint
  /** Never tip more than this per gas (wei). */
  maxPriorityFeePerGasCap?: bigint
  /** How long one fee reading is reused (default 2 s: about one block on fast L2s). */
  cacheMs?: number
  now?: () => number
}

/**
 * Prices relayer transactions: `maxFeePerGas = 2 × baseFee + tip`, both clamped to the caps.
 * Readings are cached briefly and shared by concurrent sends (one `eth_getBlockByNumber` and one
 * `eth_maxPriorityFeePerGas` per window, not per transaction).
 */
export class FeeOracle {
  readonly #client: FeeClient
  readonly #options: FeeOracleOptions
  #cached: { fees: Promise<Fees>; expires: number } | undefined

  constructor(client: FeeClient, options: FeeOracleOptions) {
    this.#client = client
    this.#options = options
  }

  /** Current fees within the caps; throws `relayer_fee_cap_exceeded` when the base fee is above the cap. */
  getFees(): Promise<Fees> {
    const now = (this.#options.now ?? Date.now)()
    if (!this.#cached || this.#cached.expires <= now) {
      const fees = this.#read()
      this.#cached = { fees, expires: now + (this.#options.cacheMs ?? 2_000) }
      fees.catch(() => {
        this.#cached = undefined
      })
    }
    return this.#cached.fees
  }

  /** `fees` raised by `percent` (at least +1 wei each), clamped to the caps: a replacement's price. */
  bump(fees: Fees, percent: bigint): Fees {
    const raise = (value: bigint) => {
      const raised = (value * (100n + percent) + 99n) / 100n
      return raised > value ? raised : value + 1n
    }
    return this.#clamp(raise(fees.maxFeePerGas), raise(fees.maxPriorityFeePerGas))
  }

  /** Whether `fees` already sit at the fee cap (a bump cannot raise them further). */
  isAtCap(fees: Fees): boolean {
    const cap = this.#options.maxFeePerGasCap
    return cap !== undefined && fees.maxFeePerGas >= cap
  }

  async #read(): Promise<Fees> {
    const [block, tip] = await Promise.all([
      this.#client.getBlock({ blockTag: 'latest' }),
      this.#client.estimateMaxPriorityFeePerGas(),
    ])
    const baseFee = block.baseFeePerGas ?? 0n
    const cap = this.#options.maxFeePerGasCap
    if (cap !== undefined && baseFee > cap) {
      throw new AppError('relayer_fee_cap_exceeded', {
        context: {
          network: this.#options.network,
          baseFeePerGas: String(baseFee),
          maxFeePerGasCap: String(cap),
        },
        message: `base fee ${baseFee} wei is above the relayer's cap of ${cap} wei`,
      })
    }
    return this.#clamp(2n * baseFee + tip, tip, baseFee)
  }

  #clamp(maxFee: bigint, tip: bigint, baseFee = 0n): Fees {
    const { maxFeePerGasCap, maxPriorityFeePerGasCap } = this.#options
    let priority =
      maxPriorityFeePerGasCap !== undefined && tip > maxPriorityFeePerGasCap ? maxPriorityFeePerGasCap : tip
    const fee = maxFeePerGasCap !== undefined && maxFee > maxFeePerGasCap ? maxFeePerGasCap : maxFee
    if (fee < baseFee + priority) {
      priority = fee > baseFee ? fee - baseFee : 0n
    }
    if (priority > fee) {
      priority = fee
    }
    return { maxFeePerGas: fee, maxPriorityFeePerGas: priority }
  }
}
