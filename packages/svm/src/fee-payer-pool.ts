import type { Address, KeyPairSigner } from '@solana/kit'
import { AppError } from '@tollgate/core'

/**
 * The fee-payer keys of one network. `next()` hands them out in turn for `/supported`, so
 * requirements (and the transactions clients build against them) spread over the pool.
 */
export class FeePayerPool {
  readonly #signers: Map<Address, KeyPairSigner>
  readonly #addresses: Address[]
  #cursor = 0

  constructor(network: string, signers: readonly KeyPairSigner[]) {
    if (signers.length === 0) {
      throw new AppError('relayer_unavailable', {
        context: { network },
        message: `no fee payer configured for ${network}`,
      })
    }
    this.#signers = new Map(signers.map((s) => [s.address, s]))
    this.#addresses = [...this.#signers.keys()]
  }

  /** Every fee-payer address. */
  get addresses(): readonly Address[] {
    return this.#addresses
  }

  /** The signer of `address`, if it is one of this pool's keys. */
  get(address: string): KeyPairSigner | undefined {
    return this.#signers.get(address as Address)
  }

  /** The next address in turn. */
  next(): Address {
    const address = this.#addresses[this.#cursor % this.#addresses.length] as Address
    this.#cursor = (this.#cursor + 1) % this.#addresses.length
    return address
  }
}
