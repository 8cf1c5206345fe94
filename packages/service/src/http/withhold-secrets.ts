/** The note a replayed answer carries in place of a secret it showed the first time. */
export const secretWithheldNote =
  'replayed without its secret, which is shown only once: rotate it to get a new one'

/**
 * What the idempotency table may keep of a response body: the body itself, or, when it holds a
 * `whsec_…` secret, the same JSON without the fields holding one and with the note appended to its
 * `message`, so a replay answers without the secret (docs/security.md "Secrets at rest").
 */
export function withholdSecrets(body: string): string {
  if (!body.includes('whsec_')) {
    return body
  }
  const marker = JSON.stringify({ success: true, message: secretWithheldNote, data: null })
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return marker
  }
  const stripped = strip(parsed)
  if (typeof stripped === 'object' && stripped !== null && 'message' in stripped) {
    const envelope = stripped as { message: unknown }
    envelope.message = `${String(envelope.message)} (${secretWithheldNote})`
  }
  const text = JSON.stringify(stripped)
  // Anything not caught above (a secret inside a longer string) stores a bare marker instead.
  return text.includes('whsec_') ? marker : text
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(strip)
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, field]) => !(typeof field === 'string' && field.startsWith('whsec_')))
        .map(([name, field]) => [name, strip(field)]),
    )
  }
  return value
}
