import { bytesToHex, hashTypedData, parseSignature, serializeSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import { recoverSigner } from './recover-signer.js'
import {
  getEip3009Digest,
  getPermit2Digest,
  permitWitnessTransferFromTypes,
  transferWithAuthorizationTypes,
} from './typed-data.js'

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const domain = {
  name: 'USDC',
  version: '2',
  chainId: 84532,
  verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
} as const
const authorization = {
  from: account.address,
  to: '0x00000000000000000000000000000000000000bb',
  value: 123_456n,
  validAfter: 0n,
  validBefore: 1_750_000_300n,
  nonce: '0x9f2b6c1d0e4a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344',
} as const
const permit = {
  token: '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f',
  amount: 10_000n,
  spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
  nonce: 2n ** 255n + 7n,
  deadline: 1_750_000_300n,
  to: '0x00000000000000000000000000000000000000bb',
  validAfter: 0n,
} as const

describe('getEip3009Digest', () => {
  test('equals viem hashTypedData of TransferWithAuthorization', () => {
    const expected = hashTypedData({
      domain,
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    })
    expect(bytesToHex(getEip3009Digest(domain, authorization))).toBe(expected)
  })

  test('behavior: the domain (name) is part of the digest', () => {
    const other = getEip3009Digest({ ...domain, name: 'USD Coin' }, authorization)
    expect(bytesToHex(other)).not.toBe(bytesToHex(getEip3009Digest(domain, authorization)))
  })
})

describe('getPermit2Digest', () => {
  test('equals viem hashTypedData of PermitWitnessTransferFrom with the exact witness', () => {
    const expected = hashTypedData({
      domain: { name: 'Permit2', chainId: 97, verifyingContract: PERMIT2_ADDRESS },
      types: permitWitnessTransferFromTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: permit.token, amount: permit.amount },
        spender: permit.spender,
        nonce: permit.nonce,
        deadline: permit.deadline,
        witness: { to: permit.to, validAfter: permit.validAfter },
      },
    })
    expect(bytesToHex(getPermit2Digest(97, permit))).toBe(expected)
  })
})

describe('recoverSigner', () => {
  test('recovers the signer of an EIP-712 signature', async () => {
    const signature = await account.signTypedData({
      domain,
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    })
    const digest = getEip3009Digest(domain, authorization)
    expect(recoverSigner(digest, signature)).toBe(account.address.toLowerCase())
  })

  test('behavior: accepts v as 0/1 as well as 27/28', async () => {
    const digest = getEip3009Digest(domain, authorization)
    const signature = await account.sign({ hash: bytesToHex(digest) })
    const { r, s, yParity } = parseSignature(signature)
    const compactV = `${r}${s.slice(2)}${yParity === 0 ? '00' : '01'}` as const
    expect(recoverSigner(digest, compactV)).toBe(account.address.toLowerCase())
  })

  test('behavior: rejects high-s (malleable) signatures only when asked', async () => {
    const digest = getEip3009Digest(domain, authorization)
    const { r, s, yParity } = parseSignature(await account.sign({ hash: bytesToHex(digest) }))
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const flipped = serializeSignature({
      r,
      s: `0x${(n - BigInt(s)).toString(16).padStart(64, '0')}`,
      yParity: yParity === 0 ? 1 : 0,
    })
    expect(recoverSigner(digest, flipped)).toBe(account.address.toLowerCase())
    expect(recoverSigner(digest, flipped, { rejectHighS: true })).toBeUndefined()
  })

  test('behavior: malformed signatures recover nothing', () => {
    const digest = getEip3009Digest(domain, authorization)
    expect(recoverSigner(digest, '0x1234')).toBeUndefined()
    expect(recoverSigner(digest, `0x${'zz'.repeat(65)}`)).toBeUndefined()
    expect(recoverSigner(digest, `0x${'00'.repeat(64)}1b`)).toBeUndefined()
    expect(recoverSigner(digest, `0x${'11'.repeat(64)}05`)).toBeUndefined()
  })
})
