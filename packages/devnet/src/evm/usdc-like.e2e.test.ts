import {
  createPublicClient,
  createWalletClient,
  http,
  keccak256,
  type PublicClient,
  parseSignature,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DevnetNetwork, DevnetWallet } from '../types.js'
import { erc1271WalletAbi, usdcLikeAbi } from './abis.js'
import { fixtureBytecodes } from './bytecodes.js'
import { DEFAULT_EVM_NETWORKS } from './evm-networks.js'
import { type EvmDevnet, startEvmDevnet } from './start-evm-devnet.js'
import { toViemChain } from './to-viem-chain.js'

// EIP-3009 and EIP-2612 on the USDC fixture, exercised the way an x402 facilitator uses them:
// the payer only signs typed data, a relayer submits and pays gas.
const NETWORK = 'eip155:84532'
const transferTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

let devnet: EvmDevnet
let network: DevnetNetwork
let client: PublicClient
let usdc: `0x${string}`
let payers: DevnetWallet[]
let relayer: ReturnType<typeof walletFor>
const merchant: `0x${string}` = '0x00000000000000000000000000000000000000aa'

beforeAll(async () => {
  devnet = await startEvmDevnet({ networks: DEFAULT_EVM_NETWORKS.slice(0, 1) })
  network = devnet.networks[NETWORK] as DevnetNetwork
  client = createPublicClient({ chain: toViemChain(network), transport: http(), pollingInterval: 50 })
  usdc = network.assets.USDC?.address as `0x${string}`
  payers = devnet.wallets.filter((w) => w.role === 'payer')
  const relayerKey = devnet.wallets.find((w) => w.role === 'relayer')?.privateKey as `0x${string}`
  relayer = walletFor(relayerKey)
})

afterAll(async () => {
  await devnet?.stop()
})

function walletFor(privateKey: `0x${string}`) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: toViemChain(network),
    transport: http(),
  })
}

function payerAccount(index: number) {
  return privateKeyToAccount(payers[index]?.privateKey as `0x${string}`)
}

const balanceOf = (address: `0x${string}`) =>
  client.readContract({ address: usdc, abi: usdcLikeAbi, functionName: 'balanceOf', args: [address] })

/** Signs a TransferWithAuthorization for `from` with `signer`'s key (the payer's, or a smart wallet owner's). */
async function signTransfer(
  signer: ReturnType<typeof payerAccount>,
  from: `0x${string}`,
  value: bigint,
  tag: string,
) {
  const message = {
    from,
    to: merchant,
    value,
    validAfter: 0n,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
    nonce: keccak256(toHex(`${tag}:${Math.random()}`)),
  }
  const signature = await signer.signTypedData({
    domain: { name: 'USDC', version: '2', chainId: network.chainId as number, verifyingContract: usdc },
    types: transferTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  })
  return { message, signature }
}

async function submit(hashPromise: Promise<`0x${string}`>) {
  return client.waitForTransactionReceipt({ hash: await hashPromise })
}

describe('UsdcLike EIP-3009 on the devnet', () => {
  test('default: transferWithAuthorization (v, r, s) signed by a payer, submitted by a relayer', async () => {
    const payer = payerAccount(0)
    const { message: m, signature } = await signTransfer(payer, payer.address, 1_250_000n, 'vrs')
    const { v, r, s } = parseSignature(signature)
    const [payerBefore, merchantBefore] = [await balanceOf(payer.address), await balanceOf(merchant)]
    const receipt = await submit(
      relayer.writeContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'transferWithAuthorization',
        args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, Number(v), r, s],
      }),
    )
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(relayer.account.address.toLowerCase())
    expect(await balanceOf(payer.address)).toBe(payerBefore - 1_250_000n)
    expect(await balanceOf(merchant)).toBe(merchantBefore + 1_250_000n)
    const used = await client.readContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'authorizationState',
      args: [payer.address, m.nonce],
    })
    expect(used).toBe(true)
  })

  test('default: transferWithAuthorization (bytes signature); a replay is rejected', async () => {
    const payer = payerAccount(0)
    const { message: m, signature } = await signTransfer(payer, payer.address, 10n, 'bytes')
    const call = {
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'transferWithAuthorization',
      args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
      account: relayer.account,
    } as const
    const before = await balanceOf(merchant)
    const receipt = await submit(relayer.writeContract({ ...call }))
    expect(receipt.status).toBe('success')
    expect(await balanceOf(merchant)).toBe(before + 10n)
    await expect(client.simulateContract(call)).rejects.toThrow(
      'FiatTokenV2: authorization is used or canceled',
    )
  })

  test('behavior: a signature by another key or for another amount is rejected', async () => {
    const { message: m, signature } = await signTransfer(
      payerAccount(1),
      payerAccount(0).address,
      10n,
      'forged',
    )
    const args = [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature] as const
    const call = {
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'transferWithAuthorization',
      account: relayer.account,
    } as const
    await expect(client.simulateContract({ ...call, args })).rejects.toThrow('FiatTokenV2: invalid signature')
    const own = await signTransfer(payerAccount(0), payerAccount(0).address, 10n, 'amount')
    const m2 = own.message
    await expect(
      client.simulateContract({
        ...call,
        args: [m2.from, m2.to, 11n, m2.validAfter, m2.validBefore, m2.nonce, own.signature],
      }),
    ).rejects.toThrow('FiatTokenV2: invalid signature')
  })

  test('behavior: an ERC-1271 smart wallet pays through the bytes overload', async () => {
    const owner = payerAccount(0)
    const hash = await walletFor(payers[0]?.privateKey as `0x${string}`).deployContract({
      abi: erc1271WalletAbi,
      bytecode: fixtureBytecodes.Erc1271Wallet.bytecode,
      args: [owner.address],
    })
    const wallet = (await client.waitForTransactionReceipt({ hash })).contractAddress as `0x${string}`
    await devnet.fund({ network: NETWORK, address: wallet, asset: 'USDC', amount: 700n })
    const { message: m, signature } = await signTransfer(owner, wallet, 700n, '1271')
    const receipt = await submit(
      relayer.writeContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'transferWithAuthorization',
        args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
      }),
    )
    expect(receipt.status).toBe('success')
    expect(await balanceOf(wallet)).toBe(0n)
  })

  test('behavior: receiveWithAuthorization only by the payee; cancelAuthorization burns the nonce', async () => {
    const payer = payerAccount(0)
    const payee = relayer.account.address
    const nonce = keccak256(toHex(`receive:${Math.random()}`))
    const message = {
      from: payer.address,
      to: payee,
      value: 3n,
      validAfter: 0n,
      validBefore: 2n ** 40n,
      nonce,
    }
    const domain = { name: 'USDC', version: '2', chainId: network.chainId as number, verifyingContract: usdc }
    const signature = await payer.signTypedData({
      domain,
      types: { ReceiveWithAuthorization: transferTypes.TransferWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message,
    })
    const args = [message.from, message.to, 3n, 0n, message.validBefore, nonce, signature] as const
    const call = { address: usdc, abi: usdcLikeAbi, functionName: 'receiveWithAuthorization', args } as const
    await expect(client.simulateContract({ ...call, account: payerAccount(1) })).rejects.toThrow(
      'FiatTokenV2: caller must be the payee',
    )
    expect((await submit(relayer.writeContract({ ...call }))).status).toBe('success')

    const cancelNonce = keccak256(toHex(`cancel:${Math.random()}`))
    const cancelSignature = await payer.signTypedData({
      domain,
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: cancelNonce },
    })
    const { v, r, s } = parseSignature(cancelSignature)
    const cancel = await submit(
      relayer.writeContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'cancelAuthorization',
        args: [payer.address, cancelNonce, Number(v), r, s],
      }),
    )
    expect(cancel.status).toBe('success')
    const state = await client.readContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'authorizationState',
      args: [payer.address, cancelNonce],
    })
    expect(state).toBe(true)
  })

  test('behavior: EIP-2612 permit sets an allowance from a signature', async () => {
    const payer = payerAccount(2)
    const spender = relayer.account.address
    const deadline = 2n ** 40n
    const signature = await payer.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: network.chainId as number, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: payer.address, spender, value: 42n, nonce: 0n, deadline },
    })
    const receipt = await submit(
      relayer.writeContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'permit',
        args: [payer.address, spender, 42n, deadline, signature],
      }),
    )
    expect(receipt.status).toBe('success')
    const read = { address: usdc, abi: usdcLikeAbi } as const
    expect(
      await client.readContract({ ...read, functionName: 'allowance', args: [payer.address, spender] }),
    ).toBe(42n)
    expect(await client.readContract({ ...read, functionName: 'nonces', args: [payer.address] })).toBe(1n)
  })

  test("behavior: a blacklisted payer's authorization reverts (simulation error, reverted receipt)", async () => {
    const payer = payerAccount(1)
    const owner = walletFor(devnet.owner.privateKey)
    const blacklist = (functionName: 'blacklist' | 'unBlacklist') =>
      submit(
        owner.writeContract({
          address: usdc,
          abi: usdcLikeAbi,
          functionName,
          args: [payer.address],
          chain: owner.chain,
        }),
      )
    await blacklist('blacklist')
    try {
      const { message: m, signature } = await signTransfer(payer, payer.address, 5n, 'blacklisted')
      const call = {
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'transferWithAuthorization',
        args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
      } as const
      await expect(client.simulateContract({ ...call, account: relayer.account })).rejects.toThrow(
        'Blacklistable: account is blacklisted',
      )
      // With an explicit gas limit nothing estimates first, so the transaction is mined and reverts.
      const receipt = await submit(relayer.writeContract({ ...call, gas: 200_000n }))
      expect(receipt.status).toBe('reverted')
      expect(await balanceOf(payer.address)).toBe(1_000_000n * 10n ** 6n)
    } finally {
      await blacklist('unBlacklist')
    }
  })
})
