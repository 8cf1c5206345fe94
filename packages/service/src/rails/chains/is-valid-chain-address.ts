import { createBase58check } from '@scure/base'
import { isAddress as isSolanaAddress } from '@solana/kit'
import { validate as isBitcoinAddress, Network } from 'bitcoin-address-validation'
import { isAddress as isEvmAddress, sha256 } from 'viem'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainFamily } from '../types.js'

/** Base58check with double SHA-256 (Bitcoin's, also Tron's and Dogecoin's address encoding). */
export const base58check = createBase58check((data) => sha256(data, 'bytes'))

// Version bytes of base58check addresses: Tron's 0x41 (mainnet and Nile alike); Dogecoin's P2PKH
// and P2SH on mainnet (D…, 9…/A…) and testnet (n…, 2…).
const tronVersion = 0x41
const dogecoinVersions: Record<KeyEnvironment, number[]> = { live: [0x1e, 0x16], test: [0x71, 0xc4] }

function decodeBase58check(address: string): Uint8Array | undefined {
  try {
    return base58check.decode(address)
  } catch {
    return undefined
  }
}

function hasVersion(address: string, versions: number[]): boolean {
  const bytes = decodeBase58check(address)
  return bytes !== undefined && bytes.length === 21 && versions.includes(bytes[0] ?? -1)
}

/**
 * Whether `address` is a well-formed address of a chain of `family`, checksums included (EIP-55 for
 * mixed-case EVM addresses, base58check, bech32/bech32m). With an `environment`, Bitcoin and Dogecoin
 * accept only that environment's network (live = mainnet, test = testnet); without, either.
 */
export function isValidChainAddress(
  family: ChainFamily,
  address: string,
  environment?: KeyEnvironment,
): boolean {
  switch (family) {
    case 'evm':
      return isEvmAddress(address, { strict: true })
    case 'solana':
      return isSolanaAddress(address)
    case 'tron':
      return address.startsWith('T') && hasVersion(address, [tronVersion])
    case 'dogecoin':
      return hasVersion(
        address,
        environment ? dogecoinVersions[environment] : [...dogecoinVersions.live, ...dogecoinVersions.test],
      )
    case 'bitcoin':
      if (environment === 'live') {
        return isBitcoinAddress(address, Network.mainnet)
      }
      if (environment === 'test') {
        return isBitcoinAddress(address, Network.testnet)
      }
      return isBitcoinAddress(address)
  }
}
