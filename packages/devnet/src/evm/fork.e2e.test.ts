import { createPublicClient, erc20Abi, http, maxUint256, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isReadOnlyRpcMethod, type RpcRecorder, startRpcRecorder } from '../testing/record-rpc.js'
import { type FiatTokenUpstream, startFiatTokenUpstream } from '../testing/start-fiat-token-upstream.js'
import type { DevnetNetwork } from '../types.js'
import { fiatTokenLikeAbi } from './abis.js'
import {
  CREATE2_DEPLOYER_ADDRESS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './addresses.js'
import { balanceStorageKey, createTokenBalanceWriter, findBalanceSlot } from './erc20-balance-slot.js'
import { ERC4337_CONTRACTS } from './erc4337/erc4337-contracts.js'
import { DEFAULT_EVM_NETWORKS } from './evm-networks.js'
import { DEFAULT_FORK_PLACERS } from './fork-placers.js'
import { createJsonRpc } from './json-rpc.js'
import { type EvmDevnet, startEvmDevnet } from './start-evm-devnet.js'

const BASE = 'eip155:84532'
const BASE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
// Fresh addresses nobody holds a key for: what `--fund` is given.
const FUNDED = '0x00000000000000000000000000000000f0dd0001'
const STRANGER = '0x00000000000000000000000000000000f0dd0002'
const FUNDED_FRESH = '0x00000000000000000000000000000000f0dd0005'

const clientOf = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl), pollingInterval: 50 })
const usdcOf = (rpcUrl: string, holder: `0x${string}`) =>
  clientOf(rpcUrl).readContract({
    address: BASE_USDC,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
  })

describe('fork of a devnet chain (OpenZeppelin layout, every contract already there)', () => {
  let upstream: EvmDevnet
  let recorder: RpcRecorder
  let fork: EvmDevnet
  let forked: DevnetNetwork
  let upstreamUrl: string

  beforeAll(async () => {
    upstream = await startEvmDevnet({
      networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE),
      fund: [FUNDED_FRESH],
    })
    upstreamUrl = upstream.networks[BASE]?.rpcUrl as string
    recorder = await startRpcRecorder(upstreamUrl)
    fork = await startEvmDevnet({
      networks: [],
      forks: [{ network: BASE, rpcUrl: recorder.url }],
      fund: [FUNDED],
    })
    forked = fork.networks[BASE] as DevnetNetwork
  })
  afterAll(async () => {
    await fork?.stop()
    await recorder?.close()
    await upstream?.stop()
  })

  test('default: a --fund-ed fresh address holds USDC, gas and a Permit2 approval on the fork, nothing upstream', async () => {
    const fork = clientOf(forked.rpcUrl)
    expect(await usdcOf(forked.rpcUrl, FUNDED)).toBe(1_000_000n * 10n ** 6n)
    expect(await fork.getBalance({ address: FUNDED })).toBe(10n ** 22n)
    expect(
      await fork.readContract({
        address: BASE_USDC,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [FUNDED, PERMIT2_ADDRESS],
      }),
    ).toBe(maxUint256)
    expect(await usdcOf(upstreamUrl, FUNDED)).toBe(0n)
    expect(await clientOf(upstreamUrl).getBalance({ address: FUNDED })).toBe(0n)
  })

  test('default: what the fork has is found, nothing placed; assets are the registry tokens, domain read from the token', () => {
    expect(forked.fork?.contracts.map((c) => [c.name, c.status])).toEqual([
      ['Create2Deployer', 'found'],
      ['Permit2', 'found'],
      ['X402ExactPermit2Proxy', 'found'],
      ['Multicall3', 'found'],
      // The upstream is a devnet: it has the ERC-4337 stack already.
      ...ERC4337_CONTRACTS.map((c) => [c.name, 'found']),
    ])
    // The upstream devnet's own USDT sits at a devnet-only address, not in the registry: not offered.
    expect(Object.keys(forked.assets)).toEqual(['USDC'])
    expect(forked.assets.USDC).toEqual({
      symbol: 'USDC',
      address: BASE_USDC,
      decimals: 6,
      eip712: { name: 'USDC', version: '2' },
      transferMethods: ['eip3009', 'permit2'],
    })
    expect(forked.chainId).toBe(84532)
    expect(fork.wallets.filter((w) => w.network === BASE).map((w) => w.role)).toEqual([
      'payer',
      'payer',
      'payer',
      'relayer',
      'relayer',
      'relayer',
      'relayer',
    ])
  })

  test('behavior: transfers on the fork leave the upstream blocks and balances as they were; the fork only read from it', async () => {
    const payer = fork.wallets.find((w) => w.network === BASE && w.role === 'payer')?.address as `0x${string}`
    const upstreamClient = clientOf(upstreamUrl)
    const blockBefore = await upstreamClient.getBlockNumber()
    const payerBefore = await usdcOf(upstreamUrl, payer)
    const forkRpc = createJsonRpc(forked.rpcUrl, BASE)
    const data = `0xa9059cbb${STRANGER.slice(2).toLowerCase().padStart(64, '0')}${5_000_000n.toString(16).padStart(64, '0')}`
    await forkRpc.request('eth_sendTransaction', [{ from: payer, to: BASE_USDC, data }])
    await fork.fund({ network: BASE, address: STRANGER, asset: 'USDC', amount: 1n })
    await fork.fund({ network: BASE, address: STRANGER, amount: 10n ** 18n })
    await fork.mine({ network: BASE, blocks: 3 })

    expect(await usdcOf(forked.rpcUrl, STRANGER)).toBe(5_000_001n)
    expect(await usdcOf(upstreamUrl, STRANGER)).toBe(0n)
    expect(await usdcOf(upstreamUrl, payer)).toBe(payerBefore)
    expect(await upstreamClient.getBlockNumber()).toBe(blockBefore)
    expect(recorder.methods.length).toBeGreaterThan(0)
    expect(recorder.methods.filter((m) => !isReadOnlyRpcMethod(m))).toEqual([])
  })

  test('default: --fund without --fork funds a fresh chain too: gas, every token, Permit2 approvals', async () => {
    const client = clientOf(upstreamUrl)
    expect(await client.getBalance({ address: FUNDED_FRESH })).toBe(10n ** 22n)
    for (const asset of Object.values(upstream.networks[BASE]?.assets ?? {})) {
      const token = asset.address as `0x${string}`
      const read = (functionName: 'balanceOf' | 'allowance') =>
        functionName === 'balanceOf'
          ? client.readContract({ address: token, abi: erc20Abi, functionName, args: [FUNDED_FRESH] })
          : client.readContract({
              address: token,
              abi: erc20Abi,
              functionName,
              args: [FUNDED_FRESH, PERMIT2_ADDRESS],
            })
      expect([asset.symbol, await read('balanceOf')]).toEqual([asset.symbol, 1_000_000n * 10n ** 6n])
      expect(await read('allowance')).toBe(maxUint256)
    }
  })

  test('behavior: an RPC serving another chain than the network named is refused at start', async () => {
    await expect(
      startEvmDevnet({ networks: [], forks: [{ network: 'eip155:421614', rpcUrl: upstreamUrl }] }),
    ).rejects.toThrow('eip155:421614: the fork RPC serves chain id 84532, not 421614')
  })

  test('default: the balance slot of an OpenZeppelin token is mapping slot 0', async () => {
    const rpc = createJsonRpc(forked.rpcUrl, BASE)
    expect(await findBalanceSlot(rpc, BASE_USDC, STRANGER)).toEqual({ slot: 0n, order: 'solidity' })
  })
})

describe('fork of a chain whose USDC has FiatToken v2.2 layout and nothing else', () => {
  const HOLDER = '0x00000000000000000000000000000000f0dd0003'
  const BLACKLISTED = '0x00000000000000000000000000000000f0dd0004'
  let upstream: FiatTokenUpstream
  let fork: EvmDevnet
  let forked: DevnetNetwork

  beforeAll(async () => {
    upstream = await startFiatTokenUpstream({
      network: BASE,
      chainId: 84532,
      // Not the registry's "USDC"/"2": the fork must advertise what the token says.
      token: {
        address: BASE_USDC,
        name: 'Bridged USDC (fork fixture)',
        symbol: 'USDC',
        version: '7',
        decimals: 6,
      },
      holders: [
        { address: HOLDER, amount: 42n },
        { address: BLACKLISTED, amount: 99n, blacklisted: true },
      ],
    })
    fork = await startEvmDevnet({
      networks: [],
      forks: [{ network: BASE, rpcUrl: upstream.rpcUrl }],
      fund: [FUNDED],
    })
    forked = fork.networks[BASE] as DevnetNetwork
  })
  afterAll(async () => {
    await fork?.stop()
    await upstream?.stop()
  })

  test('default: the EIP-712 domain comes from name() and version() of the token (it has no eip712Domain())', () => {
    expect(forked.assets.USDC?.eip712).toEqual({ name: 'Bridged USDC (fork fixture)', version: '7' })
    expect(forked.assets.USDC?.transferMethods).toEqual(['eip3009', 'permit2'])
  })

  test('default: what the chain lacks is placed at its canonical address, with code there afterwards', async () => {
    expect(forked.fork?.contracts).toEqual([
      { name: 'Create2Deployer', address: CREATE2_DEPLOYER_ADDRESS, status: 'found' },
      { name: 'Permit2', address: PERMIT2_ADDRESS, status: 'placed' },
      { name: 'X402ExactPermit2Proxy', address: X402_EXACT_PERMIT2_PROXY_ADDRESS, status: 'placed' },
      { name: 'Multicall3', address: MULTICALL3_ADDRESS, status: 'placed' },
      ...ERC4337_CONTRACTS.map((c) => ({ name: c.name, address: c.address, status: 'placed' })),
    ])
    const client = clientOf(forked.rpcUrl)
    for (const address of [
      PERMIT2_ADDRESS,
      X402_EXACT_PERMIT2_PROXY_ADDRESS,
      MULTICALL3_ADDRESS,
      ...ERC4337_CONTRACTS.map((c) => c.address),
    ]) {
      expect(await client.getCode({ address })).toMatch(/^0x[0-9a-f]{2,}/)
    }
    // Placers are idempotent: a second run finds everything.
    const rpc = createJsonRpc(forked.rpcUrl, BASE)
    const again = []
    for (const placer of DEFAULT_FORK_PLACERS) {
      const sender = fork.owner.address
      again.push(
        ...(await placer.place({ network: BASE, chainId: 84532, rpcUrl: forked.rpcUrl, rpc, sender })),
      )
    }
    expect(again.map((c) => c.status)).toEqual(again.map(() => 'found'))
    expect(again).toHaveLength(4 + ERC4337_CONTRACTS.length)
    // Permit2's constructor ran on the fork: its domain separator names chain 84532.
    const separator = await client.readContract({
      address: PERMIT2_ADDRESS,
      abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
      functionName: 'DOMAIN_SEPARATOR',
    })
    expect(separator).toMatch(/^0x[0-9a-f]{64}$/)
  })

  test('default: probing finds the packed balance word at slot 9; the funded address holds USDC on the fork only', async () => {
    const rpc = createJsonRpc(forked.rpcUrl, BASE)
    expect(await findBalanceSlot(rpc, BASE_USDC, HOLDER)).toEqual({ slot: 9n, order: 'solidity' })
    expect(await usdcOf(forked.rpcUrl, FUNDED)).toBe(1_000_000n * 10n ** 6n)
    expect(await usdcOf(upstream.rpcUrl, FUNDED)).toBe(0n)
    expect(await usdcOf(forked.rpcUrl, HOLDER)).toBe(42n)
  })

  test('behavior: writing a blacklisted holder balance keeps the blacklist bit', async () => {
    const rpc = createJsonRpc(forked.rpcUrl, BASE)
    await createTokenBalanceWriter(rpc).set(BASE_USDC, BLACKLISTED, 1_234n)
    const client = clientOf(forked.rpcUrl)
    expect(await usdcOf(forked.rpcUrl, BLACKLISTED)).toBe(1_234n)
    expect(
      await client.readContract({
        address: BASE_USDC,
        abi: fiatTokenLikeAbi,
        functionName: 'isBlacklisted',
        args: [BLACKLISTED],
      }),
    ).toBe(true)
    const word = await rpc.request<`0x${string}`>('eth_getStorageAt', [
      BASE_USDC,
      balanceStorageKey(BLACKLISTED, { slot: 9n, order: 'solidity' }),
      'latest',
    ])
    expect(BigInt(word)).toBe((1n << 255n) | 1_234n)
    expect(await usdcOf(upstream.rpcUrl, BLACKLISTED)).toBe(99n)
  })
})
