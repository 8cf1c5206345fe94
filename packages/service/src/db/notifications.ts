import type { PGlite } from '@electric-sql/pglite'
import { type Kysely, sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'

/** A subscription's handle: resolves once it no longer receives notifications. */
export type Unlisten = () => Promise<void>

/**
 * PostgreSQL LISTEN/NOTIFY for one database: `listen` calls `onNotify` with the payload of every
 * NOTIFY on `channel` committed after the returned promise resolves (see docs/jobs.md).
 */
export type Notifications = {
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>
  close(): Promise<void>
}

type Subscribers = Map<string, Set<(payload: string) => void>>

const channelPattern = /^[a-z_][a-z0-9_]{0,62}$/

function assertChannel(channel: string): void {
  if (!channelPattern.test(channel)) {
    throw new Error(`Invalid notification channel ${channel}`)
  }
}

/**
 * Adds `onNotify` to `channel`'s subscribers, calling `startListening` first when it is the
 * channel's first subscriber; returns the handle that removes it again.
 */
async function subscribe(
  subscribers: Subscribers,
  channel: string,
  onNotify: (payload: string) => void,
  startListening: () => Promise<unknown>,
): Promise<Unlisten> {
  assertChannel(channel)
  let set = subscribers.get(channel)
  if (!set) {
    set = new Set()
    subscribers.set(channel, set)
    await startListening()
  }
  set.add(onNotify)
  return async () => {
    set.delete(onNotify)
  }
}

function deliver(subscribers: Subscribers, channel: string, payload: string): void {
  for (const onNotify of subscribers.get(channel) ?? []) {
    onNotify(payload)
  }
}

/**
 * Notifications of an embedded PGlite: the LISTEN runs through `db` (so it never lands inside
 * another caller's transaction on the single session) and PGlite hands the NOTIFY of any query on
 * that session to `onNotification`, in process.
 */
export function createPgliteNotifications(pglite: PGlite, db: Kysely<unknown>): Notifications {
  const subscribers: Subscribers = new Map()
  const off = pglite.onNotification((channel, payload) => deliver(subscribers, channel, payload))
  return {
    listen: (channel, onNotify) =>
      subscribe(subscribers, channel, onNotify, () => sql`listen ${sql.id(channel)}`.execute(db)),
    async close() {
      off()
      subscribers.clear()
    },
  }
}

/**
 * Notifications of a PostgreSQL server: one dedicated connection (opened at the first `listen`)
 * that LISTENs on every subscribed channel and reconnects after an error, with a growing delay.
 * NOTIFY channels are per database, not per schema: schemas sharing a server see each other's
 * wake-ups, which only costs a spurious poll.
 */
export function createPgNotifications(databaseUrl: string, logger?: Logger): Notifications {
  const subscribers: Subscribers = new Map()
  let client: pg.Client | undefined
  let connecting: Promise<pg.Client> | undefined
  let closed = false
  let retryDelayMs = 100
  let retryTimer: NodeJS.Timeout | undefined

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({ connectionString: databaseUrl })
    next.on('notification', (message) => deliver(subscribers, message.channel, message.payload ?? ''))
    next.on('error', (error) => {
      logger?.warn({ err: error }, 'notification connection failed; reconnecting')
      if (client === next) {
        client = undefined
        connecting = undefined
        next.end().catch(() => undefined)
        scheduleReconnect()
      }
    })
    await next.connect()
    for (const channel of subscribers.keys()) {
      await next.query(`listen ${channel}`)
    }
    retryDelayMs = 100
    client = next
    return next
  }
  const ensure = (): Promise<pg.Client> => {
    connecting ??= connect().catch((error: unknown) => {
      connecting = undefined
      throw error
    })
    return connecting
  }
  const scheduleReconnect = () => {
    if (closed || retryTimer) {
      return
    }
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      ensure().catch(() => scheduleReconnect())
    }, retryDelayMs)
    retryTimer.unref()
    retryDelayMs = Math.min(retryDelayMs * 2, 5_000)
  }

  return {
    listen: (channel, onNotify) =>
      subscribe(subscribers, channel, onNotify, () =>
        client ? client.query(`listen ${channel}`) : ensure(),
      ),
    async close() {
      closed = true
      clearTimeout(retryTimer)
      subscribers.clear()
      const current = client ?? (await connecting?.catch(() => undefined))
      client = undefined
      connecting = undefined
      await current?.end().catch(() => undefined)
    },
  }
}
