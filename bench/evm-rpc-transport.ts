// CPU of our side per eth_call through viem's fetch-based `http` transport and through
// @tollgate/evm's undici `createEvmHttpTransport`, in one process against one anvil: the eth_call
// verify sends (a USDC `balanceOf`), sequential (concurrency 1) and 32 at a time. The number is
// this process's CPU time (process.cpuUsage, user + system) per call; anvil runs in its own
// process and is not counted, so the load of other processes moves it little. Transports
// alternate round by round; each row is the median of BENCH_ROUNDS rounds (default 5).
// Writes bench/results/evm-rpc-transport.json.
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVM_NETWORKS, startDevnet } from '@tollgate/devnet'
import { createEvmHttpTransport } from '@tollgate/evm'
import { type Address, createPublicClient, encodeFunctionData, erc20Abi, http, type Transport } from 'viem'

const here = dirname(fileURLToPath(import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CALLS = Number(process.env.BENCH_CALLS ?? 2000)
const BASE = 'eip155:84532'

async function main() {
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  try {
    const net = devnet.networks[BASE]
    if (!net) {
      throw new Error('no Base devnet')
    }
    const usdc = net.assets.USDC?.address as Address
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: ['0x00000000000000000000000000000000000000b5'],
    })
    const transports: Record<string, Transport> = {
      'viem http': http(net.rpcUrl),
      'viem http batch': http(net.rpcUrl, { batch: { wait: 0 } }),
      createEvmHttpTransport: createEvmHttpTransport(net.rpcUrl),
    }
    const samples: Record<string, number[]> = {}
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, transport] of Object.entries(transports)) {
        const client = createPublicClient({ transport })
        const call = () => client.call({ to: usdc, data })
        for (const concurrency of [1, 32]) {
          const before = process.cpuUsage()
          for (let sent = 0; sent < CALLS; sent += concurrency) {
            await Promise.all(Array.from({ length: concurrency }, call))
          }
          const { user, system } = process.cpuUsage(before)
          // Round 0 warms the JIT and the connections up and is not counted.
          if (round > 0) {
            const key = `${name}, concurrency ${concurrency}`
            samples[key] = [...(samples[key] ?? []), Math.round((user + system) / CALLS)]
          }
        }
      }
    }
    const results = Object.fromEntries(
      Object.entries(samples).map(([key, values]) => [
        key,
        { cpuMicrosPerCall: median(values), rounds: values },
      ]),
    )
    for (const [key, value] of Object.entries(results)) {
      console.log(
        `${key.padEnd(45)} ${String(value.cpuMicrosPerCall).padStart(5)} µs CPU per eth_call  ${value.rounds.join(' ')}`,
      )
    }
    await writeFile(
      join(here, 'results', 'evm-rpc-transport.json'),
      `${JSON.stringify({ calls: CALLS, rounds: ROUNDS, results }, null, 2)}\n`,
    )
  } finally {
    await devnet.stop()
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

await main()
