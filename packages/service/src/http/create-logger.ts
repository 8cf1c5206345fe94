import { type Logger, type LoggerOptions, pino } from 'pino'

/** Log paths whose values are replaced by `[redacted]`: keys, secrets and account numbers. */
export const redactedPaths = [
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'privateKey',
  '*.privateKey',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'accountNumber',
  '*.accountNumber',
  'headers["x-api-key"]',
  'headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'wallets[*].privateKey',
]

/** Options of {@link createLogger}: level and an optional destination stream (tests capture lines). */
export type CreateLoggerOptions = { level?: LoggerOptions['level']; destination?: NodeJS.WritableStream }

/** Creates the service's pino JSON logger with secrets redacted. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: 'tollgate-service' },
    redact: { paths: redactedPaths, censor: '[redacted]' },
  }
  return options.destination ? pino(config, options.destination) : pino(config)
}
