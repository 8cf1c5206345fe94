/** Input of {@link forwardEvents}: where the sandbox API is, where to forward, and where to print. */
export type ForwardEventsInput = {
  /** `http://127.0.0.1:4020/api/v1` (the manifest's `apiUrl`). */
  apiUrl: string
  apiKey: string
  /** Local URL receiving the events (`http://localhost:3000/webhooks`). */
  forwardTo: string
  /** Event types to forward (default all). */
  events?: string[] | undefined
  /** Stops forwarding (Ctrl-C); the temporary endpoint is deleted. */
  signal: AbortSignal
  out: (line: string) => void
  err: (line: string) => void
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** How often the events are read (default 250 ms). */
  pollMs?: number
}

type Envelope<T> = { success: boolean; message: string; data: T; error?: { code: string; details?: unknown } }
type Attempt = { attempt: number; statusCode: number | null; durationMs: number; error: string | null }
type Delivery = {
  id: string
  endpointId: string | null
  status: string
  nextAttemptAt: string | null
  attempts: Attempt[]
}

// Polls left for an event's delivery to show up before it is taken as not ours (unsubscribed type,
// or an object's own webhookUrl).
const pollsBeforeGivingUp = 40

function clockTime(): string {
  return new Date().toISOString().slice(11, 19)
}

/** One printed line per attempt: time, event, id, the receiver's status and latency, or the error. */
export function formatAttemptLine(
  type: string,
  eventId: string,
  delivery: Delivery,
  attempt: Attempt,
): string {
  const answer = attempt.statusCode === null ? '[---]' : `[${attempt.statusCode}]`
  const failure = attempt.error ? `  ${attempt.error}` : ''
  const last = delivery.attempts.at(-1)?.attempt === attempt.attempt
  const retry =
    last && delivery.status === 'pending' && delivery.nextAttemptAt
      ? `  (retry at ${delivery.nextAttemptAt})`
      : ''
  return `${clockTime()}  ${type.padEnd(28)} ${eventId}  ${answer} ${attempt.durationMs} ms${failure}${retry}`
}

/**
 * `tollgate listen --forward-to <url>` (after the Stripe CLI's `listen`): creates a temporary
 * webhook endpoint for `forwardTo` through the sandbox API, prints its signing secret, then prints
 * one line per delivery attempt the sandbox makes to it until `signal` aborts, and deletes the
 * endpoint. Deliveries are the sandbox's own (signed, retried); this only watches them.
 */
export async function forwardEvents(input: ForwardEventsInput): Promise<void> {
  const doFetch = input.fetch ?? ((url: string, init: RequestInit) => fetch(url, init))
  const api = async <T>(method: string, path: string, body?: unknown): Promise<Envelope<T>> => {
    const res = await doFetch(`${input.apiUrl}${path}`, {
      method,
      headers: {
        'x-api-key': input.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const envelope = (await res.json()) as Envelope<T>
    if (!envelope.success) {
      const details = envelope.error?.details ? ` ${JSON.stringify(envelope.error.details)}` : ''
      throw new Error(
        `${method} ${path}: ${envelope.error?.code ?? res.status} ${envelope.message}${details}`,
      )
    }
    return envelope
  }
  const created = await api<{ id: string; secret: string; createdAt: string }>(
    'POST',
    '/webhooks/endpoints',
    {
      url: input.forwardTo,
      description: 'tollgate listen (temporary)',
      ...(input.events && input.events.length > 0 ? { enabledEvents: input.events } : {}),
    },
  )
  const endpointId = created.data.id
  input.out(`Ready! Forwarding sandbox events to ${input.forwardTo}`)
  input.out(`Webhook signing secret: ${created.data.secret}  (temporary endpoint ${endpointId})`)
  input.out('Ctrl-C stops and deletes the endpoint.')
  const since = created.data.createdAt
  const seen = new Set<string>()
  const open = new Map<string, { type: string; polls: number }>()
  const printed = new Set<string>()
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      input.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })
  try {
    while (!input.signal.aborted) {
      try {
        for (let page = 1; ; page++) {
          const list = await api<{ id: string; type: string }[]>(
            'GET',
            `/events?size=100&page=${page}&startDate=${encodeURIComponent(since)}`,
          )
          const fresh = list.data.filter((e) => !seen.has(e.id))
          for (const event of fresh.reverse()) {
            seen.add(event.id)
            open.set(event.id, { type: event.type, polls: 0 })
          }
          if (list.data.length < 100 || fresh.length < list.data.length) {
            break
          }
        }
        for (const [eventId, state] of open) {
          const deliveries = await api<Delivery[]>('GET', `/events/${eventId}/deliveries`)
          const ours = deliveries.data.find((d) => d.endpointId === endpointId)
          state.polls += 1
          if (!ours) {
            if (state.polls >= pollsBeforeGivingUp) {
              open.delete(eventId)
            }
            continue
          }
          for (const attempt of ours.attempts) {
            const key = `${ours.id}:${attempt.attempt}`
            if (!printed.has(key)) {
              printed.add(key)
              input.out(formatAttemptLine(state.type, eventId, ours, attempt))
            }
          }
          if (ours.status !== 'pending') {
            open.delete(eventId)
          }
        }
      } catch (error) {
        input.err(`listen: ${error instanceof Error ? error.message : String(error)}`)
      }
      await sleep(input.pollMs ?? 250)
    }
  } finally {
    await api('DELETE', `/webhooks/endpoints/${endpointId}`).catch((error: unknown) =>
      input.err(`could not delete the temporary endpoint ${endpointId}: ${String(error)}`),
    )
  }
}
