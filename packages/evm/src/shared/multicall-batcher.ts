import { AppError } from '@tollgate/core'
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, type PublicClient } from 'viem'
import { multicall3Abi } from '../abis.js'
import { MULTICALL3_ADDRESS } from '../constants.js'

/** One call inside a Multicall3 `aggregate3` (always `allowFailure: true`). */
export type MulticallCall = { target: Address; callData: Hex }
/** The outcome of one {@link MulticallCall}. */
export type MulticallResult = { success: boolean; returnData: Hex }
/** The RPC capability the batcher needs (a viem PublicClient fits). */
export type MulticallClient = Pick<PublicClient, 'call' | 'getCode'>

/**
 * Whose balances a group's simulated transfer moves (lowercase addresses). Two groups conflict
 * when one debits an address the other debits or credits; conflicting groups never share an
 * `eth_call`, because state written by one simulated transfer is visible to the next one.
 */
export type MulticallConflict = { debit: string; credit: string }

/** Options of {@link MulticallBatcher}. */
export type MulticallBatcherOptions = {
  /**
   * Multicall3 address. When it has no code on the chain, the batcher falls back to one plain
   * eth_call per call (sent concurrently; the transport may JSON-RPC-batch them), where state
   * does not carry from one call to the next (so no ERC-6492 deploy-then-verify).
   */
  address?: Address
  /** Upper bound of calls in one `eth_call` (keeps it far below the node's gas cap). */
  maxCallsPerBatch?: number
}

type Pending = {
  calls: MulticallCall[]
  conflict: MulticallConflict | undefined
  resolve: (results: MulticallResult[]) => void
  reject: (error: unknown) => void
}

type Batch = { groups: Pending[]; calls: number; debits: Set<string>; credits: Set<string> }

/**
 * Coalesces the calls of concurrent verifies into as few Multicall3 `aggregate3` eth_calls as
 * possible: everything queued in the same event-loop turn goes out together (split only for
 * conflicts and size). One verify thus costs a fraction of one RPC round trip under load and one
 * round trip when alone.
 */
export class MulticallBatcher {
  readonly #client: MulticallClient
  readonly #address: Address
  readonly #maxCalls: number
  #queue: Pending[] = []
  #scheduled = false
  #multicall3: Promise<boolean> | undefined

  constructor(client: MulticallClient, options: MulticallBatcherOptions = {}) {
    this.#client = client
    this.#address = options.address ?? MULTICALL3_ADDRESS
    this.#maxCalls = options.maxCallsPerBatch ?? 240
  }

  /** Runs `calls` (in order, each allowed to fail) in a shared aggregate3 and returns their results. */
  run(calls: MulticallCall[], conflict?: MulticallConflict): Promise<MulticallResult[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ calls, conflict, resolve, reject })
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => this.#flush())
      }
    })
  }

  #flush(): void {
    this.#scheduled = false
    const queue = this.#queue
    this.#queue = []
    const batches: Batch[] = []
    for (const group of queue) {
      let batch = batches.find((b) => this.#fits(b, group))
      if (!batch) {
        batch = { groups: [], calls: 0, debits: new Set(), credits: new Set() }
        batches.push(batch)
      }
      batch.groups.push(group)
      batch.calls += group.calls.length
      if (group.conflict) {
        batch.debits.add(group.conflict.debit)
        batch.credits.add(group.conflict.credit)
      }
    }
    for (const batch of batches) {
      void this.#send(batch.groups)
    }
  }

  #fits(batch: Batch, group: Pending): boolean {
    if (batch.calls > 0 && batch.calls + group.calls.length > this.#maxCalls) {
      return false
    }
    const conflict = group.conflict
    if (!conflict) {
      return true
    }
    return (
      !batch.debits.has(conflict.debit) &&
      !batch.credits.has(conflict.debit) &&
      !batch.debits.has(conflict.credit)
    )
  }

  async #send(groups: Pending[]): Promise<void> {
    try {
      const calls = groups.flatMap((g) => g.calls)
      const results = (await this.#hasMulticall3())
        ? await this.#aggregate(calls)
        : await this.#callEach(calls)
      let index = 0
      for (const group of groups) {
        group.resolve(results.slice(index, index + group.calls.length))
        index += group.calls.length
      }
    } catch (error) {
      const wrapped =
        error instanceof AppError
          ? error
          : new AppError('rpc_failed', {
              context: { method: 'eth_call' },
              cause: error,
              message: 'multicall failed',
            })
      for (const group of groups) {
        group.reject(wrapped)
      }
    }
  }

  async #aggregate(calls: MulticallCall[]): Promise<readonly MulticallResult[]> {
    const args = [calls.map((c) => ({ ...c, allowFailure: true }))] as const
    const data = encodeFunctionData({ abi: multicall3Abi, functionName: 'aggregate3', args })
    const { data: returned } = await this.#client.call({ to: this.#address, data })
    if (!returned) {
      throw new AppError('rpc_failed', {
        context: { method: 'eth_call' },
        message: 'aggregate3 returned no data',
      })
    }
    return decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: returned })
  }

  #callEach(calls: MulticallCall[]): Promise<MulticallResult[]> {
    return Promise.all(
      calls.map(async (c) => {
        try {
          const { data } = await this.#client.call({ to: c.target, data: c.callData })
          return { success: true, returnData: data ?? '0x' }
        } catch (error) {
          const returnData = findRevertData(error)
          if (returnData === undefined) {
            throw error
          }
          return { success: false, returnData }
        }
      }),
    )
  }

  #hasMulticall3(): Promise<boolean> {
    this.#multicall3 ??= this.#client.getCode({ address: this.#address }).then(
      (code) => code !== undefined && code !== '0x',
      (error) => {
        this.#multicall3 = undefined
        throw error
      },
    )
    return this.#multicall3
  }
}

const batchers = new WeakMap<MulticallClient, MulticallBatcher>()

/** The batcher shared by every facilitator that uses `client` (one per RPC client). */
export function getMulticallBatcher(client: MulticallClient): MulticallBatcher {
  let batcher = batchers.get(client)
  if (!batcher) {
    batcher = new MulticallBatcher(client)
    batchers.set(client, batcher)
  }
  return batcher
}

// viem nests the revert data of a failed eth_call in its error's cause chain; a revert is a
// call result, anything else (transport, timeout) is an RPC failure.
function findRevertData(error: unknown): Hex | undefined {
  let current: unknown = error
  for (let depth = 0; current && depth < 6; depth++) {
    const candidate = current as { data?: unknown; name?: string; cause?: unknown; shortMessage?: string }
    if (typeof candidate.data === 'string' && candidate.data.startsWith('0x')) {
      return candidate.data as Hex
    }
    if (candidate.name === 'CallExecutionError' && /revert/i.test(candidate.shortMessage ?? '')) {
      return '0x'
    }
    current = candidate.cause
  }
  return undefined
}
