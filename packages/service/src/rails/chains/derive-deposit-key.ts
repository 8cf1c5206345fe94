import { bech32 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { getAddressDecoder } from '@solana/kit'
import { HARDENED_OFFSET, HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { bytesToHex, type Hex, hexToBytes, ripemd160, sha256 } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { AddressPurpose, ChainFamily } from '../types.js'
import { base58check } from './is-valid-chain-address.js'

/** What a derived key is for: a deposit address, or the rails' own treasury and fee-payer keys. */
export type KeyPurpose = AddressPurpose | 'treasury' | 'fee_payer'

/** Where a key sits in the master seed's tree: family, environment, purpose and index. */
export type DerivationBranch = { family: ChainFamily; environment: KeyEnvironment; purpose: KeyPurpose }

/** A derived deposit key: its path, address and private key (32 bytes; ed25519 seed on Solana). */
export type DepositKey = { path: string; address: string; privateKey: Uint8Array }

// SLIP-44 coin types; EVM chains share 60 (an index is allocated once across all of them, so an EVM
// address is used on one chain only). Bitcoin uses BIP-84 (native segwit) paths.
const coinTypes: Record<ChainFamily, number> = { evm: 60, solana: 501, bitcoin: 0, tron: 195, dogecoin: 3 }
const environmentAccounts: Record<KeyEnvironment, number> = { live: 0, test: 1 }
const purposeBranches: Record<KeyPurpose, number> = {
  session: 0,
  deposit: 1,
  x402: 2,
  treasury: 8,
  fee_payer: 9,
}

/** The counter key of a branch: indexes are allocated per (environment, coin type, purpose). */
export function getBranchKey(branch: DerivationBranch): string {
  return `${branch.environment}:${coinTypes[branch.family]}:${branch.purpose}`
}

/**
 * The derivation path of `index` in `branch`: `m/44'/coin'/env'/purpose/index` (BIP-84's `m/84'/…`
 * for Bitcoin; every level hardened on Solana, as SLIP-0010 ed25519 requires).
 */
export function getDerivationPath(branch: DerivationBranch, index: number): string {
  const account = environmentAccounts[branch.environment]
  const purpose = purposeBranches[branch.purpose]
  if (branch.family === 'solana') {
    return `m/44'/501'/${account}'/${purpose}'/${index}'`
  }
  const root = branch.family === 'bitcoin' ? 84 : 44
  return `m/${root}'/${coinTypes[branch.family]}'/${account}'/${purpose}/${index}`
}

const hash160 = (bytes: Uint8Array) => ripemd160(sha256(bytes, 'bytes'), 'bytes')

// secp256k1's field prime; p = 3 (mod 4), so a square root of a is a^((p+1)/4).
const fieldPrime = 2n ** 256n - 2n ** 32n - 977n

function powMod(base: bigint, exponent: bigint): bigint {
  let result = 1n
  let b = base % fieldPrime
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) {
      result = (result * b) % fieldPrime
    }
    b = (b * b) % fieldPrime
  }
  return result
}

/**
 * The EVM address of a compressed secp256k1 public key (the one the derived key already holds):
 * its y recovered from x (y² = x³ + 7), then keccak's last 20 bytes, checksummed. Computing it
 * from the private key (`privateKeyToAddress`) multiplied the curve's generator a second time.
 */
function toEvmAddress(compressed: Uint8Array): Hex {
  const x = BigInt(bytesToHex(compressed.subarray(1)))
  let y = powMod(x * x * x + 7n, (fieldPrime + 1n) / 4n)
  if ((y & 1n) !== BigInt((compressed[0] ?? 0) & 1)) {
    y = fieldPrime - y
  }
  return publicKeyToAddress(`0x04${x.toString(16).padStart(64, '0')}${y.toString(16).padStart(64, '0')}`)
}

function toAddress(family: ChainFamily, environment: KeyEnvironment, key: HDKey): string {
  const privateKey = key.privateKey
  const publicKey = key.publicKey
  if (!privateKey || !publicKey) {
    throw new TypeError('derived key has no private key')
  }
  switch (family) {
    case 'evm':
      return toEvmAddress(publicKey)
    case 'tron':
      // Tron: the EVM address bytes behind version byte 0x41, base58check.
      return base58check.encode(new Uint8Array([0x41, ...hexToBytes(toEvmAddress(publicKey))]))
    case 'bitcoin':
      return bech32.encode(environment === 'live' ? 'bc' : 'tb', [0, ...bech32.toWords(hash160(publicKey))])
    case 'dogecoin':
      return base58check.encode(new Uint8Array([environment === 'live' ? 0x1e : 0x71, ...hash160(publicKey)]))
    case 'solana':
      throw new TypeError('solana keys are ed25519')
  }
}

/** Derives the deposit key of `index` in `branch` (see {@link createDepositKeyDeriver}). */
export type DepositKeyDeriver = (branch: DerivationBranch, index: number) => DepositKey

/**
 * A deriver of deposit keys from the 64-byte master seed that keeps the branch nodes (a path without
 * its last level) it has derived, so an address costs one child derivation instead of the whole path
 * from the seed (about three quarters of the CPU of POST /payments went to re-deriving the same
 * hardened levels; bench/payments.ts). The keys are the ones their whole paths give. The nodes hold
 * nothing the seed beside them does not, and there is one per branch (family, environment, purpose).
 */
export function createDepositKeyDeriver(seed: Uint8Array): DepositKeyDeriver {
  const nodes = new Map<string, HDKey | Slip10Key>()
  const getBranchNode = <T extends HDKey | Slip10Key>(key: string, derive: () => T): T => {
    let node = nodes.get(key) as T | undefined
    if (!node) {
      node = derive()
      nodes.set(key, node)
    }
    return node
  }
  return (branch, index) => {
    const path = getDerivationPath(branch, index)
    const parentPath = path.slice(0, path.lastIndexOf('/'))
    if (branch.family === 'solana') {
      const parent = getBranchNode(`ed25519:${parentPath}`, () => {
        const node = Slip10Key.fromMasterSeed(seed).derive(parentPath)
        // Its fingerprint (a child's parentFingerprint) is a getter that recomputes the public key on
        // every child: kept as a value on the cached node, it is computed once.
        Object.defineProperty(node, 'fingerprint', { value: node.fingerprint })
        return node
      })
      const key = parent.deriveChild(index + HARDENED_OFFSET)
      return { path, address: getAddressDecoder().decode(key.publicKeyRaw), privateKey: key.privateKey }
    }
    const parent = getBranchNode(`secp256k1:${parentPath}`, () =>
      HDKey.fromMasterSeed(seed).derive(parentPath),
    )
    const key = parent.deriveChild(index)
    const address = toAddress(branch.family, branch.environment, key)
    return { path, address, privateKey: key.privateKey ?? new Uint8Array() }
  }
}

/** Derives the deposit key of `index` in `branch` from the 64-byte master seed, once (no cache). */
export function deriveDepositKey(seed: Uint8Array, branch: DerivationBranch, index: number): DepositKey {
  return createDepositKeyDeriver(seed)(branch, index)
}

/** The 0x-hex private key at `path` (a secp256k1 path of {@link getDerivationPath}) of the master seed. */
export function deriveSecp256k1Key(seed: Uint8Array, path: string): Hex {
  const key = HDKey.fromMasterSeed(seed).derive(path)
  if (!key.privateKey) {
    throw new TypeError('derived key has no private key')
  }
  return bytesToHex(key.privateKey)
}

/** The ed25519 private key (32-byte seed) at `path` (a Solana path of {@link getDerivationPath}) of the master seed. */
export function deriveEd25519Key(seed: Uint8Array, path: string): Uint8Array {
  return Slip10Key.fromMasterSeed(seed).derive(path).privateKey
}

/** The 0x-hex private key of an EVM (or Tron) deposit key, for viem accounts. */
export function toHexKey(key: DepositKey): Hex {
  return bytesToHex(key.privateKey)
}
