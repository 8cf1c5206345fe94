import { secp256k1 } from '@noble/curves/secp256k1'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { bytesToHex, hexToBytes } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import type { ChainFamily } from '../types.js'
import {
  createDepositKeyDeriver,
  deriveDepositKey,
  getBranchKey,
  getDerivationPath,
} from './derive-deposit-key.js'
import { base58check, isValidChainAddress } from './is-valid-chain-address.js'

// Anvil's public test mnemonic: m/44'/60'/0'/0/0 is its well-known first account.
const seed = mnemonicToSeedSync('test test test test test test test test test test test junk')
const families: ChainFamily[] = ['evm', 'solana', 'bitcoin', 'tron', 'dogecoin']

describe('deriveDepositKey', () => {
  test('default: the live session branch of EVM is BIP-44 account 0 (anvil account 0 at index 0)', () => {
    const key = deriveDepositKey(seed, { family: 'evm', environment: 'live', purpose: 'session' }, 0)
    expect(key.path).toBe("m/44'/60'/0'/0/0")
    expect(key.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
  })
  for (const family of families) {
    test(`${family}: addresses are valid for their environment, distinct per index, purpose and environment`, () => {
      const seenAddresses = new Set<string>()
      for (const environment of ['live', 'test'] as const) {
        for (const purpose of ['session', 'deposit', 'x402'] as const) {
          for (const index of [0, 1, 2]) {
            const key = deriveDepositKey(seed, { family, environment, purpose }, index)
            expect([key.address, isValidChainAddress(family, key.address, environment)]).toEqual([
              key.address,
              true,
            ])
            seenAddresses.add(key.address)
          }
        }
      }
      expect(seenAddresses.size).toBe(18)
    })
  }
  test('behavior: each key equals its whole path derived from the master seed (the branch node is cached)', () => {
    const derive = createDepositKeyDeriver(seed)
    for (const family of families) {
      for (const purpose of ['session', 'x402'] as const) {
        for (const index of [0, 5, 2 ** 31 - 1]) {
          const branch = { family, environment: 'test', purpose } as const
          const key = derive(branch, index)
          const full =
            family === 'solana'
              ? Slip10Key.fromMasterSeed(seed).derive(key.path).privateKey
              : HDKey.fromMasterSeed(seed).derive(key.path).privateKey
          expect([key.path, bytesToHex(key.privateKey)]).toEqual([
            getDerivationPath(branch, index),
            bytesToHex(full ?? new Uint8Array()),
          ])
        }
      }
    }
    // A deriver of another seed has branch nodes of its own.
    const other = mnemonicToSeedSync(
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    )
    const deriveOther = createDepositKeyDeriver(other)
    const branch = { family: 'solana', environment: 'test', purpose: 'session' } as const
    expect(deriveOther(branch, 1).address).not.toBe(derive(branch, 1).address)
    expect(bytesToHex(deriveOther(branch, 1).privateKey)).toBe(
      bytesToHex(Slip10Key.fromMasterSeed(other).derive("m/44'/501'/1'/0'/1'").privateKey),
    )
  })
  test('behavior: an EVM or Tron address is the one its private key gives (y recovered from the compressed key, both parities)', () => {
    const derive = createDepositKeyDeriver(seed)
    const parities = new Set<number>()
    for (let index = 0; index < 16; index++) {
      const key = derive({ family: 'evm', environment: 'test', purpose: 'session' }, index)
      expect(key.address).toBe(privateKeyToAddress(bytesToHex(key.privateKey)))
      parities.add(secp256k1.getPublicKey(key.privateKey, true)[0] ?? 0)
      const tron = derive({ family: 'tron', environment: 'test', purpose: 'session' }, index)
      const evmBytes = hexToBytes(privateKeyToAddress(bytesToHex(tron.privateKey)))
      expect(tron.address).toBe(base58check.encode(new Uint8Array([0x41, ...evmBytes])))
    }
    // Keys with an even and an odd y were both checked.
    expect([...parities].sort()).toEqual([2, 3])
  })
  test('behavior: the same seed, branch and index give the same address (recoverable)', () => {
    const branch = { family: 'solana', environment: 'test', purpose: 'deposit' } as const
    expect(deriveDepositKey(seed, branch, 7).address).toBe(deriveDepositKey(seed, branch, 7).address)
    expect(getDerivationPath(branch, 7)).toBe("m/44'/501'/1'/1'/7'")
    expect(getBranchKey(branch)).toBe('test:501:deposit')
  })
  test('behavior: bitcoin uses native segwit (BIP-84) and the testnet prefix in the sandbox', () => {
    const live = deriveDepositKey(seed, { family: 'bitcoin', environment: 'live', purpose: 'session' }, 0)
    const sandbox = deriveDepositKey(seed, { family: 'bitcoin', environment: 'test', purpose: 'session' }, 0)
    expect(live.path).toBe("m/84'/0'/0'/0/0")
    expect(live.address.startsWith('bc1q')).toBe(true)
    expect(sandbox.address.startsWith('tb1q')).toBe(true)
  })
})
