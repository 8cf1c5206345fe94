import { AppError } from '@tollgate/core'
import type { Address, Hex, PublicClient } from 'viem'
import { MULTICALL3_ADDRESS } from '../constants.js'
import { decodeAggregate3, encodeAggregate3 } from './aggregate3.js'

/** One call inside a Multicall3 `aggregate3` (always `allowFailure: true`). */
export type MulticallCall = { target: Address; callData: Hex }
/** The outcome of one {@link MulticallCall}. */
export type MulticallResult = { success: boolean; returnData: Hex }
/** The RPC capability the batcher needs (a viem PublicClient fits). */
export type MulticallClient = Pick<PublicClient, 'call' | 'getCode'>

/**
 * Whose balances a group's simulated transfer moves (lowercase addresses). State written by one
 * simulated transfer is visible to the calls after it in the same `eth_call`, so:
 * - a group never joins a batch in which an earlier group credits the address it debits (the
 *   credit could make an unfunded payment look funded: a false "valid");
 * - a group may follow another group that debits the same payer only when it gives
 *   `acceptShared`: an earlier simulated debit can only make its checks fail (lower balance or
 *   allowance, a nonce marked used), so results it accepts are trusted, and results it refuses are
 *   computed again with the group alone;
 * - an `exclusive` group (one that deploys code, ERC-6492) shares its payer with no other group.
 */
export type MulticallConflict = { debit: string; credit: string; exclusive?: boolean }

/** Options of one {@link MulticallBatcher.run}. */
export type MulticallRunOptions = {
  conflict?: MulticallConflict
  /**
   * Whether results computed after another group's simulated debit of the same payer stand (the
   * group's verdict is "valid"). Without it the group never shares its payer with another group.
   */
  acceptShared?: (results: readonly MulticallResult[]) => boolean
}

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
  /**
   * How many `eth_call`s may be awaiting the node at once (default 2). Calls queued while the
   * limit is reached go out together when one answers, so batches grow with load instead of the
   * node getting one small request per event-loop turn; an idle batcher sends at once.
   */
  maxInFlight?: number
}

type Pending = {
  calls: MulticallCall[]
  /** The calls as one string: identical groups queued together are sent once. */
  key: string
  conflict: MulticallConflict | undefined
  acceptShared: ((results: readonly MulticallResult[]) => boolean) | undefined
  /** Set when the group is retried alone after its shared results were refused. */
  alone: boolean
  /** Groups identical to this one, answered with its results. */
  twins: Pending[]
  resolve: (results: MulticallResult[]) => void
  reject: (error: unknown) => void
}

/** A group in a batch, and whether an earlier group of the batch debited its payer. */
type Placed = { group: Pending; shared: boolean }

type Batch = {
  groups: Placed[]
  calls: number
  debits: Set<string>
  credits: Set<string>
  exclusive: Set<string>
}

/**
 * Coalesces the calls of concurrent verifies into as few Multicall3 `aggregate3` eth_calls as
 * possible: everything queued in the same event-loop turn goes out together (split only for
 * conflicts and size; identical groups are sent once). One verify thus costs a fraction of one RPC round trip under load and one
 * round trip when alone.
 */
export class MulticallBatcher {
  readonly #client: MulticallClient
  readonly #address: Address
  readonly #maxCalls: number
  readonly #maxInFlight: number
  #inFlight = 0
  #queue: Pending[] = []
  #scheduled = false
  #multicall3: Promise<boolean> | undefined

  constructor(client: MulticallClient, options: MulticallBatcherOptions = {}) {
    this.#client = client
    this.#address = options.address ?? MULTICALL3_ADDRESS
    this.#maxCalls = options.maxCallsPerBatch ?? 240
    this.#maxInFlight = options.maxInFlight ?? 2
  }

  /** Runs `calls` (in order, each allowed to fail) in a shared aggregate3 and returns their results. */
  run(calls: MulticallCall[], options: MulticallRunOptions = {}): Promise<MulticallResult[]> {
    return new Promise((resolve, reject) => {
      this.#enqueue({
        calls,
        key: calls.map((c) => c.target + c.callData).join(),
        conflict: options.conflict,
        acceptShared: options.acceptShared,
        alone: false,
        twins: [],
        resolve,
        reject,
      })
    })
  }

  #enqueue(group: Pending): void {
    this.#queue.push(group)
    this.#schedule()
  }

  #schedule(): void {
    if (!this.#scheduled && this.#queue.length > 0) {
      this.#scheduled = true
      // Idle: go out once the current synchronous work is done (before I/O callbacks, such as an
      // embedded database's work, get the thread). Busy: gather until the next loop turn.
      if (this.#inFlight === 0) {
        queueMicrotask(() => this.#flush())
      } else {
        setImmediate(() => this.#flush())
      }
    }
  }

  #flush(): void {
    this.#scheduled = false
    if (this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) {
      return // #send flushes again when an eth_call answers.
    }
    const queue = this.#queue
    this.#queue = []
    const batches: Batch[] = []
    const byKey = new Map<string, Pending>()
    for (const group of queue) {
      // The same calls queued twice (one payment verified twice at once) read the same state.
      const first = group.alone ? undefined : byKey.get(group.key)
      if (first) {
        first.twins.push(group)
        continue
      }
      if (!group.alone) {
        byKey.set(group.key, group)
      }
      let placed: Placed | undefined
      let batch: Batch | undefined
      for (const candidate of batches) {
        placed = this.#place(candidate, group)
        if (placed) {
          batch = candidate
          break
        }
      }
      if (!batch || !placed) {
        batch = { groups: [], calls: 0, debits: new Set(), credits: new Set(), exclusive: new Set() }
        placed = { group, shared: false }
        batches.push(batch)
      }
      batch.groups.push(placed)
      batch.calls += group.calls.length
      if (group.conflict) {
        batch.debits.add(group.conflict.debit)
        batch.credits.add(group.conflict.credit)
        if (group.conflict.exclusive) {
          batch.exclusive.add(group.conflict.debit)
        }
      }
    }
    for (const batch of batches) {
      void this.#send(batch.groups)
    }
  }

  /** How `group` would sit in `batch`, or undefined when it must not join it. */
  #place(batch: Batch, group: Pending): Placed | undefined {
    if (batch.calls > 0 && batch.calls + group.calls.length > this.#maxCalls) {
      return undefined
    }
    const conflict = group.conflict
    if (!conflict) {
      return { group, shared: false }
    }
    if (batch.credits.has(conflict.debit) || batch.exclusive.has(conflict.debit)) {
      return undefined
    }
    const shared = batch.debits.has(conflict.debit)
    if (shared && (conflict.exclusive || !group.acceptShared || group.alone)) {
      return undefined
    }
    return { group, shared }
  }

  async #send(placed: Placed[]): Promise<void> {
    let results: readonly MulticallResult[]
    this.#inFlight += 1
    try {
      const calls = placed.flatMap((p) => p.group.calls)
      results = (await this.#hasMulticall3()) ? await this.#aggregate(calls) : await this.#callEach(calls)
    } catch (error) {
      const wrapped =
        error instanceof AppError
          ? error
          : new AppError('rpc_failed', {
              context: { method: 'eth_call' },
              cause: error,
              message: 'multicall failed',
            })
      for (const { group } of placed) {
        for (const each of [group, ...group.twins]) {
          each.reject(wrapped)
        }
      }
      return
    } finally {
      this.#inFlight -= 1
      this.#schedule()
    }
    let index = 0
    for (const { group, shared } of placed) {
      const slice = results.slice(index, index + group.calls.length)
      index += group.calls.length
      if (shared && !group.acceptShared?.(slice)) {
        // An earlier simulated debit of the same payer may be why it failed: ask again alone.
        this.#enqueue({ ...group, alone: true })
        continue
      }
      for (const each of [group, ...group.twins]) {
        each.resolve(slice)
      }
    }
  }

  async #aggregate(calls: MulticallCall[]): Promise<readonly MulticallResult[]> {
    const { data: returned } = await this.#client.call({ to: this.#address, data: encodeAggregate3(calls) })
    if (!returned) {
      throw new AppError('rpc_failed', {
        context: { method: 'eth_call' },
        message: 'aggregate3 returned no data',
      })
    }
    try {
      return decodeAggregate3(returned)
    } catch (cause) {
      throw new AppError('rpc_failed', {
        context: { method: 'eth_call' },
        cause,
        message: 'aggregate3 returned malformed data',
      })
    }
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

/**
 * The batcher shared by every facilitator that uses `client` (one per RPC client); `options` apply
 * when this call creates it.
 */
export function getMulticallBatcher(
  client: MulticallClient,
  options: MulticallBatcherOptions = {},
): MulticallBatcher {
  let batcher = batchers.get(client)
  if (!batcher) {
    batcher = new MulticallBatcher(client, options)
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
