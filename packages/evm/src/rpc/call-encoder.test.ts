import { randomBytes } from 'node:crypto'
import { bytesToHex, encodeFunctionData, erc20Abi, getAbiItem, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { eip3009Abi, permit2Abi } from '../abis.js'
import { encodeAuthorizationState, encodeTransferWithAuthorization } from '../eip3009/eip3009-calldata.js'
import { encodeNonceBitmap, encodeProxyPermit2, encodeProxySettle } from '../permit2/permit2-calldata.js'
import { createCallEncoder } from './call-encoder.js'
import { encodeAllowance, encodeBalanceOf, encodeIsValidSignature } from './calldata.js'

const randomHex = (bytes: number): Hex => bytesToHex(randomBytes(bytes))
const address = () => privateKeyToAccount(generatePrivateKey()).address
const uint = (bytes: number) => BigInt(randomHex(bytes))

// The hand-written word encoders must give byte for byte what viem's generic encoder gives.
describe('createCallEncoder', () => {
  it('encodes one-word arguments exactly as encodeFunctionData', () => {
    for (let i = 0; i < 50; i++) {
      const [owner, spender] = [address(), address()]
      expect(encodeBalanceOf(owner)).toBe(
        encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
      )
      expect(encodeAllowance(owner, spender)).toBe(
        encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
      )
      const nonce = randomHex(32) as Hex
      const [, , authorizationState] = eip3009Abi
      expect(encodeAuthorizationState(owner, nonce)).toBe(
        encodeFunctionData({ abi: [authorizationState], args: [owner, nonce] }),
      )
      const permitNonce = uint(32)
      expect(encodeNonceBitmap(owner, permitNonce)).toBe(
        encodeFunctionData({
          abi: permit2Abi,
          functionName: 'nonceBitmap',
          args: [owner, permitNonce >> 8n],
        }),
      )
    }
  })

  it('encodes transferWithAuthorization (v, r, s) and (bytes) as encodeFunctionData', () => {
    const [vrs, bytes] = eip3009Abi
    for (let i = 0; i < 50; i++) {
      const message = {
        from: address(),
        to: address(),
        value: uint(i % 32 || 1),
        validAfter: uint(4),
        validBefore: uint(8),
        nonce: randomHex(32) as Hex,
      }
      const args = [
        message.from,
        message.to,
        message.value,
        message.validAfter,
        message.validBefore,
        message.nonce,
      ] as const
      const r = randomHex(32) as Hex
      const s = randomHex(32) as Hex
      const v = 27 + (i % 2)
      const signature = `${r}${s.slice(2)}${v.toString(16)}` as Hex
      expect(encodeTransferWithAuthorization(message, signature)).toBe(
        encodeFunctionData({ abi: [vrs], args: [...args, v, r, s] }),
      )
      const long = randomHex(97) as Hex
      expect(encodeTransferWithAuthorization(message, long)).toBe(
        encodeFunctionData({ abi: [bytes], args: [...args, long] }),
      )
    }
  })

  it('encodes dynamic arguments through viem with the cached selector', () => {
    const digest = randomHex(32) as Hex
    const signature = randomHex(65) as Hex
    expect(encodeIsValidSignature(digest, signature).slice(0, 10)).toBe('0x1626ba7e')
    expect(encodeProxyPermit2()).toMatch(/^0x[0-9a-f]{8}$/)
    const owner = address()
    const calldata = encodeProxySettle(
      owner,
      {
        token: address(),
        amount: 5n,
        spender: address(),
        nonce: 1n,
        deadline: 2n,
        to: address(),
        validAfter: 0n,
      },
      signature,
    )
    expect(calldata).toContain(owner.slice(2).toLowerCase())
  })

  it('refuses values that do not fit their type instead of encoding garbage', () => {
    const balanceOf = createCallEncoder(getAbiItem({ abi: erc20Abi, name: 'balanceOf' }))
    expect(() => balanceOf(['0x1234' as Hex])).toThrow(TypeError)
    const nonceBitmap = createCallEncoder(getAbiItem({ abi: permit2Abi, name: 'nonceBitmap' }))
    expect(() => nonceBitmap([address(), -1n])).toThrow(RangeError)
    expect(() => nonceBitmap([address(), 1n << 256n])).toThrow(RangeError)
  })
})
