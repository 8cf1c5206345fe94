import { describe, expect, test } from 'vitest'
import { createChainRegistry } from './create-chain-registry.js'
import { base58check, isValidChainAddress } from './is-valid-chain-address.js'

const registry = createChainRegistry()

// Public addresses: token contracts, well-known wallets and BIP-173/BIP-350 test vectors.
const vectors = {
  ethereum: {
    valid: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'],
    invalid: [
      '0xf39fd6e51aad88F6F4ce6aB8827279cffFb92266',
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226',
      'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      '0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    ],
  },
  base: {
    valid: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
    invalid: ['0x833589fcD6eDb6E08f4c7C32D4f71b54bdA02913', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
  },
  arbitrum: {
    valid: ['0xaf88d065e77c8cC2239327C5EDb3A432268e5831'],
    invalid: ['0xaf88d065e77c8cC2239327C5EDb3A432268e583'],
  },
  bsc: {
    valid: ['0x55d398326f99059fF775485246999027B3197955'],
    invalid: ['0x55D398326f99059fF775485246999027B3197955'],
  },
  polygon: {
    valid: ['0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
    invalid: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  },
  celo: {
    valid: ['0xcebA9300f2b948710d2653dD7B07f33A8B32118C'],
    invalid: ['0xceba9300f2b948710d2653dD7B07f33A8B32118C'],
  },
  solana: {
    valid: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '11111111111111111111111111111111'],
    invalid: [
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGk',
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1vEPj',
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10',
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    ],
  },
  tron: {
    valid: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'],
    invalid: [
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    ],
  },
  bitcoin: {
    valid: [
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    ],
    invalid: [
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3',
      'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L',
    ],
  },
  dogecoin: {
    valid: [
      'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L',
      base58check.encode(new Uint8Array([0x71, ...new Uint8Array(20).fill(7)])),
    ],
    invalid: [
      'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7M',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ],
  },
} as const

describe('isValidChainAddress', () => {
  test('vectors: every chain of the registry has valid and invalid addresses', () => {
    expect(Object.keys(vectors).sort()).toEqual(
      registry
        .list('live')
        .map((e) => e.chain)
        .sort(),
    )
  })
  for (const [chain, { valid, invalid }] of Object.entries(vectors)) {
    test(`${chain}: accepts the valid vectors and refuses the invalid ones`, () => {
      for (const address of valid) {
        expect([address, registry.isValidAddress(chain as 'base', address)]).toEqual([address, true])
      }
      for (const address of invalid) {
        expect([address, registry.isValidAddress(chain as 'base', address)]).toEqual([address, false])
      }
    })
  }
  test('behavior: bitcoin and dogecoin check the network when given an environment', () => {
    expect(isValidChainAddress('bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'live')).toBe(false)
    expect(isValidChainAddress('bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'test')).toBe(true)
    expect(isValidChainAddress('bitcoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'test')).toBe(false)
    expect(isValidChainAddress('dogecoin', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', 'live')).toBe(true)
    expect(isValidChainAddress('dogecoin', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', 'test')).toBe(false)
  })
})
