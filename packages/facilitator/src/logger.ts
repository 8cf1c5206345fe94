/**
 * The logging capability the facilitator needs; a pino logger fits as-is. Objects first, message
 * second (pino's convention), so fields stay machine-readable.
 */
export type Logger = {
  debug(fields: object, message?: string): void
  info(fields: object, message?: string): void
  warn(fields: object, message?: string): void
  error(fields: object, message?: string): void
}

const ignore = () => {}

/** A {@link Logger} that drops everything (the default when none is injected). */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore }
