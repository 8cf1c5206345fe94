/** The words of a name: lower-cased, accents and punctuation removed, sorted (order-insensitive). */
export function toNameTokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0)
    .sort()
}

/**
 * Whether a bank's account holder name is one of `names` (the merchant's name and business name):
 * the same words, ignoring case, accents, punctuation, spacing and word order (docs/payouts.md).
 */
export function matchesAccountName(accountName: string, names: readonly (string | null)[]): boolean {
  const holder = toNameTokens(accountName).join(' ')
  return holder.length > 0 && names.some((name) => name !== null && toNameTokens(name).join(' ') === holder)
}
