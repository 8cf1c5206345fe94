import { AppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { authenticateApiKey } from './authenticate-api-key.js'

/** Middleware requiring a valid, unrevoked `x-api-key`; sets `c.var.auth` or throws 401 `unauthorized`. */
export function requireApiKey(deps: Pick<Deps, 'db'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header('x-api-key')
    if (!key) {
      throw new AppError('unauthorized', { message: 'Missing API key: send it in the x-api-key header' })
    }
    const auth = await authenticateApiKey(deps, key)
    if (!auth) {
      throw new AppError('unauthorized', { message: 'Invalid or revoked API key' })
    }
    c.set('auth', auth)
    await next()
  }
}
