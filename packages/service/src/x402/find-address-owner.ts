import { getAddress, isAddress } from 'viem'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainEntry, DepositAddress } from '../rails/types.js'

/**
 * Who owns an address on a chain, as far as the platform knows: one of its deposit addresses (a
 * merchant's x402, session or deposit address), the chain's treasury or a fee payer (`platform`),
 * or nobody here (`external`).
 */
export type AddressOwner =
  | { kind: 'deposit'; address: DepositAddress }
  | { kind: 'platform' }
  | { kind: 'external' }

/** The address in the form the platform stores it: checksummed on EVM, as given elsewhere. */
export function toStoredAddress(entry: ChainEntry, address: string): string {
  return entry.family === 'evm' && isAddress(address, { strict: false }) ? getAddress(address) : address
}

/**
 * Looks up who owns `address` on `entry`'s chain (docs/security.md "Who is credited for an x402
 * payment"): a deposit address of any merchant, the treasury or a fee payer, or an external address.
 */
export async function findAddressOwner(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: { environment: KeyEnvironment; entry: ChainEntry; address: string },
): Promise<AddressOwner> {
  const own = await deps.rails.addresses.find(deps.db, {
    environment: input.environment,
    chain: input.entry.chain,
    address: input.address,
  })
  if (own) {
    return { kind: 'deposit', address: own }
  }
  const treasury = deps.rails.crypto.getTreasury(input.environment, input.entry.chain)
  const stored = toStoredAddress(input.entry, input.address)
  const operating = treasury ? [treasury.address, ...treasury.feePayers] : []
  return operating.some((a) => toStoredAddress(input.entry, a) === stored)
    ? { kind: 'platform' }
    : { kind: 'external' }
}
