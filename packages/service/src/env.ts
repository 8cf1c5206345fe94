import { z } from 'zod'
import { isProxyRange } from './checkout/client-ip.js'

/** Environment variables of the service and its CLI, parsed once by the composition roots. */
export const ServiceEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(4020),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  TOLLGATE_DATA_DIR: z.string().default('.tollgate/data'),
  TOLLGATE_MANIFEST: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  // Comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is believed.
  TOLLGATE_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((range) => range.trim())
        .filter((range) => range !== ''),
    )
    .refine((ranges) => ranges.every(isProxyRange), 'comma-separated IP addresses or CIDR ranges'),
  // Keys of stored secrets (`tollgate worker` beside `tollgate serve`); unset: the sandbox's, from its master seed.
  TOLLGATE_SECRET_KEYS: z.string().optional(),
  // `false` when separate `tollgate worker` processes run the jobs (docs/jobs.md).
  TOLLGATE_IN_PROCESS_JOBS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
})
/** Environment variables of the service and its CLI, parsed once by the composition roots. */
export type ServiceEnv = z.infer<typeof ServiceEnv>

/** Parses `source` (normally `process.env`); throws a readable error naming each bad variable. */
export function parseServiceEnv(source: Record<string, string | undefined>): ServiceEnv {
  const result = ServiceEnv.safeParse(source)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid environment: ${problems.join('; ')}`)
  }
  return result.data
}
