import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'

/** The job kind that opens a Solana address's token account: payload {@link OpenTokenAccountPayload}. */
export const openTokenAccountJobKind = 'rails.open-token-account'

/** What {@link runOpenTokenAccountJob} opens. */
export type OpenTokenAccountPayload = {
  environment: KeyEnvironment
  chain: ChainName
  asset: string
  owner: string
}

/**
 * Opens `owner`'s token account of `asset` through `rails.crypto.openTokenAccount` (docs/rails.md
 * "Token accounts of session addresses"). A plain `(deps, payload)` handler for the jobs runner:
 * it throws while the account is not confirmed open, so the runner retries it.
 */
export async function runOpenTokenAccountJob(
  deps: Pick<Deps, 'rails' | 'logger'>,
  payload: OpenTokenAccountPayload,
): Promise<void> {
  const result = (await deps.rails.crypto.openTokenAccount?.(payload)) ?? 'not_needed'
  if (result === 'opened') {
    deps.logger.info(
      { chain: payload.chain, asset: payload.asset, owner: payload.owner },
      'token account opened',
    )
  }
}
