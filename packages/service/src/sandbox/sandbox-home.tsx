import { randomBytes } from 'node:crypto'
import type { Context } from 'hono'
import { HostedLayout, toHostedCsp } from '../checkout/hosted-layout.js'
import type { SandboxManifest } from './sandbox-manifest.js'

/** The sandbox's `/`: links to the API docs, the demo resource, a sample checkout and the manifest's URLs. */
export function renderSandboxHome(c: Context, manifest: SandboxManifest): Response | Promise<Response> {
  const nonce = randomBytes(16).toString('base64')
  c.header('Content-Security-Policy', toHostedCsp(nonce))
  c.header('Cache-Control', 'no-store')
  const links = [
    { href: '/docs', label: 'API reference (Swagger UI)', note: 'try the merchant API with the sandbox key' },
    { href: '/api/v1/openapi.json', label: 'OpenAPI document', note: 'for generated clients' },
    { href: manifest.checkoutUrl, label: 'Sample checkout', note: 'a new 10.00 USD payment session' },
    {
      href: manifest.demoResourceUrl,
      label: 'Demo paid resource',
      note: 'answers 402 with x402 requirements',
    },
    { href: `${manifest.facilitatorUrl}/supported`, label: 'Facilitator', note: 'the x402 facilitator' },
  ]
  return c.html(
    <HostedLayout title="Tollgate sandbox" nonce={nonce}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">Tollgate sandbox</h1>
        <p>A local merchant service on local chains. Nothing here moves real money.</p>
        <ul>
          {links.map((link) => (
            <li>
              <a href={link.href}>{link.label}</a> <span class="muted">{link.note}</span>
            </li>
          ))}
        </ul>
      </section>
      <section class="card" aria-labelledby="manifest">
        <h2 id="manifest">Manifest</h2>
        <p class="muted">Also written to .tollgate/sandbox.json (with the API key and payer wallets).</p>
        <dl>
          <dt>API</dt>
          <dd>
            <code>{manifest.apiUrl}</code>
          </dd>
          <dt>Facilitator</dt>
          <dd>
            <code>{manifest.facilitatorUrl}</code>
          </dd>
          <dt>Demo resource</dt>
          <dd>
            <code>{manifest.demoResourceUrl}</code>
          </dd>
          <dt>Checkout</dt>
          <dd>
            <code>{manifest.checkoutUrl}</code>
          </dd>
          {Object.entries(manifest.networks).map(([network, value]) => (
            <>
              <dt>RPC of {network}</dt>
              <dd>
                <code>{value.rpcUrl}</code>
              </dd>
            </>
          ))}
        </dl>
      </section>
    </HostedLayout>,
  )
}
