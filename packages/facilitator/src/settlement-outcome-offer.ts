import type { SettledOutcomeWrite, SettleResponse } from '@tollgate/core'
import type { CompleteSettlementParameters, SettlementStore } from './settlement-store.js'

/**
 * The outcome write handed to a hook: `outcome(hook)` resolves with what the hook reported
 * (`written`), or `undefined` once it released the write or ended without reporting, meaning the
 * caller must write it itself.
 */
export function createOutcomeOffer(joinable: Joinable, parameters: CompleteSettlementParameters) {
  let decide: (stored: boolean | undefined) => void = () => {}
  const decided = new Promise<boolean | undefined>((resolve) => {
    decide = resolve
  })
  const write: SettledOutcomeWrite = {
    query: joinable.completeQuery(parameters),
    key: parameters.key,
    queryWith: (others) =>
      joinable.completeManyQuery([
        parameters,
        ...others.map((other) => {
          const offer = offers.get(other)
          if (offer?.joinable !== joinable) {
            throw new Error('queryWith: an outcome write handed over by another settlement store')
          }
          return offer.parameters
        }),
      ]),
    written: (stored) => decide(stored),
    release: () => decide(undefined),
  }
  offers.set(write, { joinable, parameters })
  return {
    write,
    outcome: (hook: Promise<unknown>) => Promise.race([decided, hook.then(() => undefined)]),
  }
}

export type Joinable = NonNullable<SettlementStore['joinable']>

// Each outcome write handed over, with its store and parameters, so `queryWith` can combine
// writes of one store (across coordinators on it) and refuse the others.
const offers = new WeakMap<
  SettledOutcomeWrite,
  { joinable: Joinable; parameters: CompleteSettlementParameters }
>()

/** Runs a settle hook; resolves to its error (never rejects), or undefined when it succeeded. */
export function runHook(
  hook: (result: SettleResponse, outcome?: SettledOutcomeWrite) => Promise<void>,
  result: SettleResponse,
  outcome: SettledOutcomeWrite | undefined,
): Promise<{ error: unknown } | undefined> {
  return Promise.resolve()
    .then(() => hook(result, outcome))
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
}
