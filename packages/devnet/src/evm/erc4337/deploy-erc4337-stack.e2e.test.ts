import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type AnvilProcess, spawnAnvil } from '../anvil-process.js'
import { getAnvilAccounts } from '../dev-accounts.js'
import { createJsonRpc, type JsonRpc } from '../json-rpc.js'
import { deployErc4337Stack } from './deploy-erc4337-stack.js'
import { ERC4337_CONTRACTS, SAFE_ADDRESSES } from './erc4337-contracts.js'

let anvil: AnvilProcess
let rpc: JsonRpc
const [from] = getAnvilAccounts(1)

beforeAll(async () => {
  anvil = await spawnAnvil({ chainId: 84532, accounts: 1, network: 'eip155:84532' })
  rpc = createJsonRpc(anvil.rpcUrl, 'eip155:84532')
})

afterAll(async () => {
  await anvil?.stop()
})

const codeAt = (address: string) => rpc.request<string>('eth_getCode', [address, 'latest'])

describe('deployErc4337Stack', () => {
  test('default: what is missing lands at its canonical address, what is there is kept; a second call places nothing', async () => {
    const sender = from?.address as `0x${string}`
    // As on a fork of a chain that already has MultiSend: its code is kept as it is.
    await rpc.request('anvil_setCode', [SAFE_ADDRESSES.multiSend, '0xfe'])
    const names = ERC4337_CONTRACTS.map((c) => c.name)
    const first = await deployErc4337Stack(rpc, { network: 'eip155:84532', from: sender })
    expect(first).toEqual({ placed: names.filter((n) => n !== 'MultiSend'), found: ['MultiSend'] })
    expect(await codeAt(SAFE_ADDRESSES.multiSend)).toBe('0xfe')
    const codes = await Promise.all(ERC4337_CONTRACTS.map((c) => codeAt(c.address)))
    expect(codes.every((code) => code.length > 2)).toBe(true)
    const second = await deployErc4337Stack(rpc, { network: 'eip155:84532', from: sender })
    expect(second).toEqual({ placed: [], found: names })
    expect(await Promise.all(ERC4337_CONTRACTS.map((c) => codeAt(c.address)))).toEqual(codes)
  })
})
