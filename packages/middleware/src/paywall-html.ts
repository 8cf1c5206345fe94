import { type AssetRegistry, formatAtomicAmount, getSchemeName, type PaymentRequired } from '@tollgate/core'

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
}

/**
 * A self-contained HTML page for people who open a paid URL in a browser: what the resource is,
 * what it costs on each network, and how to pay from the command line. No script, no external
 * assets; every interpolated value is escaped.
 */
export function renderPaywallHtml(
  paymentRequired: PaymentRequired,
  options: { assets: AssetRegistry; appName?: string },
): string {
  const { resource } = paymentRequired
  const title = options.appName ?? 'Payment required'
  const rows = paymentRequired.accepts
    .map((requirement) => {
      const asset = options.assets.find(requirement.network, requirement.asset)
      const price = asset
        ? `${formatAtomicAmount(BigInt(requirement.amount), asset.decimals)} ${asset.symbol}`
        : `${requirement.amount} (atomic units of ${requirement.asset})`
      const scheme = getSchemeName(requirement) ?? requirement.scheme
      return `<tr><td>${escapeHtml(price)}</td><td>${escapeHtml(requirement.network)}</td><td>${escapeHtml(scheme)}</td><td><code>${escapeHtml(requirement.payTo)}</code></td></tr>`
    })
    .join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}
code{font-size:.85em;word-break:break-all}.note{color:#555}
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>This resource costs a small payment through the <a href="https://x402.org">x402</a> protocol (HTTP 402).</p>
<p><strong>${escapeHtml(resource.description ?? resource.url)}</strong></p>
<table>
<thead><tr><th>Price</th><th>Network</th><th>Scheme</th><th>Pays to</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p class="note">Pay with any x402 client, for example:</p>
<pre><code>tollgate pay ${escapeHtml(resource.url)}</code></pre>
</body>
</html>
`
}
