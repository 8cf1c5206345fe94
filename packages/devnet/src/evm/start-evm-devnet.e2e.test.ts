import {
  createPublicClient,
  createWalletClient,
  hashDomain,
  http,
  maxUint256,
  type PublicClient,
  parseEther,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DevnetNetwork } from '../types.js'
import { multicall3Abi, permit2Abi, usdcLikeAbi, usdtLikeAbi, x402ExactPermit2ProxyAbi } from './abis.js'
import { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './addresses.js'
import { DEFAULT_EVM_NETWORKS } from './evm-networks.js'
import { type EvmDevnet, startEvmDevnet } from './start-evm-devnet.js'
import { toViemChain } from './to-viem-chain.js'

let devnet: EvmDevnet
const clients = new Map<string, PublicClient>()

beforeAll(async () => {
  devnet = await startEvmDevnet()
  for (const network of Object.values(devnet.networks)) {
    clients.set(
      network.network,
      createPublicClient({ chain: toViemChain(network), transport: http(), pollingInterval: 50 }),
    )
  }
})

afterAll(async () => {
  await devnet?.stop()
})

const client = (network: string) => clients.get(network) as PublicClient
const net = (network: string) => devnet.networks[network] as DevnetNetwork
const addr = (value: string | undefined) => value as `0x${string}`

describe('startEvmDevnet', () => {
  test('default: one anvil per testnet chain id, with the manifest shape', async () => {
    expect(Object.keys(devnet.networks)).toEqual([
      'eip155:84532',
      'eip155:421614',
      'eip155:97',
      'eip155:11155111',
      'eip155:80002',
      'eip155:11142220',
    ])
    for (const [id, network] of Object.entries(devnet.networks)) {
      expect(network).toMatchObject({ network: id, kind: 'evm', permit2: PERMIT2_ADDRESS })
      expect(await client(id).getChainId()).toBe(network.chainId)
      expect(Number(id.split(':')[1])).toBe(network.chainId)
    }
    expect(new Set(Object.values(devnet.pids)).size).toBe(6)
  })

  test("behavior: tokens sit at the testnets' addresses with their name, decimals and EIP-712 domain", async () => {
    for (const config of DEFAULT_EVM_NETWORKS) {
      for (const token of config.tokens) {
        const asset = net(config.network).assets[token.symbol]
        expect(asset?.address).toBe(token.address)
        const read = { address: token.address, abi: usdtLikeAbi } as const
        const c = client(config.network)
        expect(await c.readContract({ ...read, functionName: 'name' })).toBe(token.name)
        expect(await c.readContract({ ...read, functionName: 'decimals' })).toBe(token.decimals)
        expect(await c.readContract({ ...read, functionName: 'owner' })).toBe(devnet.owner.address)
      }
    }
    const usdc = net('eip155:84532').assets.USDC
    expect(usdc).toMatchObject({
      decimals: 6,
      eip712: { name: 'USDC', version: '2' },
      transferMethods: ['eip3009', 'permit2'],
    })
    expect(net('eip155:421614').assets.USDC?.eip712).toEqual({ name: 'USD Coin', version: '2' })
    expect(net('eip155:97').assets.USDT).toMatchObject({ decimals: 18, transferMethods: ['permit2'] })
    expect(net('eip155:97').assets.USDT?.eip712).toBeUndefined()
  })

  test('behavior: USDC answers eip712Domain() and DOMAIN_SEPARATOR() for its real address and chain', async () => {
    const withEip3009 = DEFAULT_EVM_NETWORKS.filter((n) => n.tokens.some((t) => t.contract === 'UsdcLike'))
    expect(withEip3009.map((n) => n.network)).toEqual([
      'eip155:84532',
      'eip155:421614',
      'eip155:11155111',
      'eip155:80002',
      'eip155:11142220',
    ])
    for (const { network } of withEip3009) {
      const usdc = net(network).assets.USDC
      const address = addr(usdc?.address)
      const domain = await client(network).getEip712Domain({ address })
      const expected = {
        name: usdc?.eip712?.name ?? '',
        version: '2',
        chainId: net(network).chainId as number,
        verifyingContract: address,
      }
      expect(domain.fields).toBe('0x0f')
      expect(domain.domain).toMatchObject(expected)
      const separator = await client(network).readContract({
        address,
        abi: usdcLikeAbi,
        functionName: 'DOMAIN_SEPARATOR',
      })
      const domainHash = hashDomain({
        domain: { ...expected, chainId: BigInt(expected.chainId) },
        types: { EIP712Domain: eip712DomainFields },
      })
      expect(separator).toBe(domainHash)
    }
  })

  test('behavior: canonical Permit2, the x402 proxy and Multicall3 are deployed on every chain', async () => {
    for (const network of Object.values(devnet.networks)) {
      const c = client(network.network)
      const permit2Separator = await c.readContract({
        address: PERMIT2_ADDRESS,
        abi: permit2Abi,
        functionName: 'DOMAIN_SEPARATOR',
      })
      expect(permit2Separator).toBe(
        hashDomain({
          domain: {
            name: 'Permit2',
            chainId: BigInt(network.chainId ?? 0),
            verifyingContract: PERMIT2_ADDRESS,
          },
          types: { EIP712Domain: eip712DomainFields.filter((f) => f.name !== 'version') },
        }),
      )
      const proxy = { address: X402_EXACT_PERMIT2_PROXY_ADDRESS, abi: x402ExactPermit2ProxyAbi } as const
      expect(await c.readContract({ ...proxy, functionName: 'PERMIT2' })).toBe(PERMIT2_ADDRESS)
      expect(await c.readContract({ ...proxy, functionName: 'WITNESS_TYPE_STRING' })).toBe(
        'Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)',
      )
      expect(
        await c.readContract({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: 'getChainId' }),
      ).toBe(BigInt(network.chainId ?? 0))
    }
  })

  test('behavior: payers hold 1,000,000 of each token and all but the last approve Permit2; relayers hold gas only', async () => {
    const network = 'eip155:97'
    const wallets = devnet.wallets.filter((w) => w.network === network)
    const payers = wallets.filter((w) => w.role === 'payer')
    const relayers = wallets.filter((w) => w.role === 'relayer')
    expect(payers.map((p) => p.permit2Approved)).toEqual([true, true, false])
    expect(relayers).toHaveLength(4)
    const usdt = addr(net(network).assets.USDT?.address)
    const calls = wallets.flatMap((w) => [
      { address: usdt, abi: usdtLikeAbi, functionName: 'balanceOf', args: [addr(w.address)] } as const,
      {
        address: usdt,
        abi: usdtLikeAbi,
        functionName: 'allowance',
        args: [addr(w.address), PERMIT2_ADDRESS],
      } as const,
    ])
    // Through viem's multicall, which needs Multicall3 at its canonical address.
    const results = await client(network).multicall({ contracts: calls, allowFailure: false })
    const perWallet = wallets.map((w, i) => ({
      role: w.role,
      balance: results[2 * i],
      allowance: results[2 * i + 1],
    }))
    const million = 1_000_000n * 10n ** 18n
    expect(perWallet).toEqual([
      { role: 'payer', balance: million, allowance: maxUint256 },
      { role: 'payer', balance: million, allowance: maxUint256 },
      { role: 'payer', balance: million, allowance: 0n },
      ...relayers.map(() => ({ role: 'relayer', balance: 0n, allowance: 0n })),
    ])
    expect(
      await client(network).readContract({ address: usdt, abi: usdtLikeAbi, functionName: 'totalSupply' }),
    ).toBe(3n * million)
    for (const relayer of relayers) {
      expect(await client(network).getBalance({ address: addr(relayer.address) })).toBeGreaterThan(
        parseEther('1'),
      )
    }
  })

  test('behavior: Ethereum, Polygon and Celo hold the fixtures: funded USDC and USDT, and USDC moves by EIP-3009', async () => {
    for (const network of ['eip155:11155111', 'eip155:80002', 'eip155:11142220']) {
      expect(net(network).assets.USDC).toMatchObject({
        decimals: 6,
        eip712: { name: 'USDC', version: '2' },
        transferMethods: ['eip3009', 'permit2'],
      })
      expect(net(network).assets.USDT).toMatchObject({ decimals: 6, transferMethods: ['permit2'] })
      const [payer] = devnet.wallets.filter((w) => w.network === network && w.role === 'payer')
      const [relayer] = devnet.wallets.filter((w) => w.network === network && w.role === 'relayer')
      const usdc = addr(net(network).assets.USDC?.address)
      const usdt = addr(net(network).assets.USDT?.address)
      const c = client(network)
      for (const token of [usdc, usdt]) {
        expect(
          await c.readContract({
            address: token,
            abi: usdtLikeAbi,
            functionName: 'balanceOf',
            args: [addr(payer?.address)],
          }),
        ).toBe(1_000_000n * 10n ** 6n)
        expect(
          await c.readContract({
            address: token,
            abi: usdtLikeAbi,
            functionName: 'allowance',
            args: [addr(payer?.address), PERMIT2_ADDRESS],
          }),
        ).toBe(maxUint256)
      }
      // The payer signs, a relayer submits: the chain id of the domain is this chain's.
      const from = privateKeyToAccount(addr(payer?.privateKey))
      const to = '0x000000000000000000000000000000000000c0DE'
      const message = {
        from: from.address,
        to,
        value: 1_500_000n,
        validAfter: 0n,
        validBefore: 2n ** 48n,
        nonce: `0x${network.split(':')[1]?.padStart(64, '0')}` as `0x${string}`,
      } as const
      const signature = await from.signTypedData({
        domain: {
          name: 'USDC',
          version: '2',
          chainId: net(network).chainId as number,
          verifyingContract: usdc,
        },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'TransferWithAuthorization',
        message,
      })
      const wallet = createWalletClient({
        account: privateKeyToAccount(addr(relayer?.privateKey)),
        chain: toViemChain(net(network)),
        transport: http(),
      })
      const hash = await wallet.writeContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'transferWithAuthorization',
        args: [
          message.from,
          message.to,
          message.value,
          message.validAfter,
          message.validBefore,
          message.nonce,
          signature,
        ],
      })
      expect((await c.waitForTransactionReceipt({ hash })).status).toBe('success')
      expect(
        await c.readContract({ address: usdc, abi: usdtLikeAbi, functionName: 'balanceOf', args: [to] }),
      ).toBe(1_500_000n)
    }
  })

  test('behavior: fund() tops up tokens (balance and totalSupply) and sets the native balance', async () => {
    const network = 'eip155:421614'
    const stranger = '0x000000000000000000000000000000000000bEEF'
    const usdc = { address: addr(net(network).assets.USDC?.address), abi: usdcLikeAbi } as const
    const supplyBefore = await client(network).readContract({ ...usdc, functionName: 'totalSupply' })
    await devnet.fund({ network, address: stranger, asset: 'USDC', amount: 5_000_000n })
    await devnet.fund({ network, address: stranger, asset: usdc.address, amount: 1n })
    await devnet.fund({ network, address: stranger, amount: parseEther('2') })
    expect(await client(network).readContract({ ...usdc, functionName: 'balanceOf', args: [stranger] })).toBe(
      5_000_001n,
    )
    expect(await client(network).readContract({ ...usdc, functionName: 'totalSupply' })).toBe(
      supplyBefore + 5_000_001n,
    )
    expect(await client(network).getBalance({ address: stranger })).toBe(parseEther('2'))
    await expect(devnet.fund({ network, address: stranger, asset: 'DAI', amount: 1n })).rejects.toMatchObject(
      {
        code: 'unknown_asset',
      },
    )
    await expect(devnet.fund({ network: 'eip155:1', address: stranger, amount: 1n })).rejects.toMatchObject({
      code: 'invalid_network',
    })
  })

  test('behavior: with automine off a transaction stays pending until mine()', async () => {
    const network = 'eip155:84532'
    const [payer] = devnet.wallets.filter((w) => w.network === network && w.role === 'relayer')
    const wallet = createWalletClient({
      account: privateKeyToAccount(addr(payer?.privateKey)),
      chain: toViemChain(net(network)),
      transport: http(),
    })
    await devnet.setAutomine({ network, enabled: false })
    try {
      const hash = await wallet.sendTransaction({ to: zeroAddress, value: 1n })
      await expect(client(network).getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/)
      await devnet.mine({ network })
      expect((await client(network).getTransactionReceipt({ hash })).status).toBe('success')
    } finally {
      await devnet.setAutomine({ network, enabled: true })
    }
  })
})

describe('startEvmDevnet stop()', () => {
  test('behavior: kills anvil (the pid is gone) and is idempotent', async () => {
    const small = await startEvmDevnet({ networks: DEFAULT_EVM_NETWORKS.slice(0, 1), payers: 1, relayers: 1 })
    const pid = small.pids['eip155:84532'] as number
    expect(isAlive(pid)).toBe(true)
    await Promise.all([small.stop(), small.stop()])
    await small.stop()
    expect(isAlive(pid)).toBe(false)
    await expect(fetch(small.networks['eip155:84532']?.rpcUrl ?? '')).rejects.toThrow()
  })
})

const eip712DomainFields = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
