import { expect, test } from 'vitest'
import { toWalletUri } from './wallet-uri.js'

const to = '0x1111111111111111111111111111111111111111'
const usdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'

test('an EVM token is an EIP-681 transfer call with the atomic amount and the chain id', () => {
  const uri = toWalletUri({
    family: 'evm',
    network: 'eip155:84532',
    tokenAddress: usdc,
    to,
    atomicAmount: 101_019_501n,
    decimals: 6,
  })
  expect(uri).toBe(`ethereum:${usdc}@84532/transfer?address=${to}&uint256=101019501`)
})

test('a native EVM coin is an EIP-681 value transfer to the address', () => {
  const uri = toWalletUri({
    family: 'evm',
    network: 'eip155:1',
    tokenAddress: null,
    to,
    atomicAmount: 10n ** 18n,
    decimals: 18,
  })
  expect(uri).toBe(`ethereum:${to}@1?value=1000000000000000000`)
})

test('a Solana SPL token is a Solana Pay URI with a decimal amount and the mint', () => {
  const recipient = 'Gx3mN9p5U3bV1Kq8jJ6vTq9yWkQ1rXy7x7s9hX5c3dY2'
  const mint = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
  const uri = toWalletUri({
    family: 'solana',
    network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    tokenAddress: mint,
    to: recipient,
    atomicAmount: 2_500_000n,
    decimals: 6,
  })
  expect(uri).toBe(`solana:${recipient}?amount=2.5&spl-token=${mint}`)
})

test('a chain without a wallet URI scheme gets the bare address', () => {
  const uri = toWalletUri({
    family: 'tron',
    network: 'tron:nile',
    tokenAddress: null,
    to: 'TXYZ',
    atomicAmount: 1n,
    decimals: 6,
  })
  expect(uri).toBe('TXYZ')
})
