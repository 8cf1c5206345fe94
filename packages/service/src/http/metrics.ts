import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { Histogram, Registry } from 'prom-client'
import type { AppEnv } from './app-env.js'

/** Prometheus metrics of one app: its own registry and the request-latency histogram (seconds). */
export type HttpMetrics = { registry: Registry; requestDuration: Histogram<'method' | 'route' | 'status'> }

/** Creates a fresh registry with `http_request_duration_seconds` labelled by method, route and status. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry()
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  return { registry, requestDuration }
}

/** Middleware observing each request's latency under its route template (`/api/v1/balance/transactions/:id`). */
export function createMetricsMiddleware(metrics: HttpMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const end = metrics.requestDuration.startTimer()
    await next()
    // Middleware is registered as `ALL`; the last method-specific match is the route template.
    // Unmatched paths share one label so random URLs cannot grow the series count.
    const route = matchedRoutes(c).findLast((r) => r.method !== 'ALL')?.path ?? 'unmatched'
    end({ method: c.req.method, route, status: String(c.res.status) })
  }
}
