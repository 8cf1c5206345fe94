import { AppError } from '@tollgate/core'

declare module '@tollgate/core' {
  interface AppErrorContexts {
    /** A local chain failed to start or to set up its fixtures; `output` is the tail of the process log. */
    devnet_failed: { network?: string; output?: string }
  }
}

/** Builds the {@link AppError} the devnet throws when a chain cannot start or be set up. */
export function createDevnetError(
  message: string,
  context: { network?: string; output?: string } = {},
  cause?: unknown,
) {
  return new AppError('devnet_failed', { message, context, cause })
}
