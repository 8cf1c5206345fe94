// Shared helpers of the benchmarks (bench/run.ts runs only bench/*.ts, not this folder).

/** The p-th percentile (0–100) of ascending `sorted` values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) {
    return 0
  }
  const rank = Math.ceil((p / 100) * sorted.length) - 1
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? 0
}

/** Rounds to two decimals for the JSON results. */
export function round(value: number): number {
  return Math.round(value * 100) / 100
}

/** Latency summary in milliseconds of a set of samples. */
export function summarize(samplesMs: readonly number[]): {
  p50: number
  p99: number
  mean: number
  max: number
} {
  const sorted = [...samplesMs].sort((a, b) => a - b)
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length)
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(mean),
    max: round(sorted.at(-1) ?? 0),
  }
}

/**
 * Runs `inputs` through `op` with `concurrency` workers, each taking the next input (closed loop),
 * and returns every latency in milliseconds and the wall time in seconds.
 */
export async function runClosedLoop<T>(
  inputs: readonly T[],
  concurrency: number,
  op: (input: T) => Promise<void>,
): Promise<{ latenciesMs: number[]; seconds: number }> {
  const latenciesMs: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < inputs.length) {
        const input = inputs[next++] as T
        const t0 = performance.now()
        await op(input)
        latenciesMs.push(performance.now() - t0)
      }
    }),
  )
  return { latenciesMs, seconds: (performance.now() - started) / 1000 }
}
