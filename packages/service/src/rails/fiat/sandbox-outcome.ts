/**
 * What the sandbox provider does with a transfer, steered by the last four digits of the account
 * number (bank) or phone number (mobile money): `0000` fails, `1111` stays processing until the
 * callback route fires, `2222` times out (the call throws `provider_unavailable` although the
 * provider took the transfer, which then succeeds), anything else succeeds. See docs/rails-fiat.md.
 */
export type SandboxOutcome = 'success' | 'failed' | 'held' | 'timeout'

const outcomesBySuffix: Record<string, SandboxOutcome> = {
  '0000': 'failed',
  '1111': 'held',
  '2222': 'timeout',
}

/** The steered outcome of a transfer to `accountNumber` (see {@link SandboxOutcome}). */
export function sandboxOutcomeOf(accountNumber: string): SandboxOutcome {
  return outcomesBySuffix[accountNumber.slice(-4)] ?? 'success'
}
