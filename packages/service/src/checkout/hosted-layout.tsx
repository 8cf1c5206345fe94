import type { Child } from 'hono/jsx'
import { checkoutCss } from './checkout-assets.js'

/** Props of {@link HostedLayout}. */
export type HostedLayoutProps = { title: string; nonce: string; script?: string; children?: Child }

/** The HTML shell of every hosted page: inline CSS and script under a per-response CSP nonce. */
export function HostedLayout(props: HostedLayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: checkoutCss }} />
      </head>
      <body>
        <main>{props.children}</main>
        {props.script ? (
          <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.script }} />
        ) : null}
      </body>
    </html>
  )
}

/**
 * The Content-Security-Policy of hosted pages: nothing but our own origin and the nonce's inline code.
 * Forms post only to our origin (`form-action 'self'`; browsers also hold a form's redirects to it):
 * both forms answer a 303 to our own checkout, and the return to the merchant is a link or a script
 * navigation, which `form-action` does not govern (docs/security.md).
 */
export function toHostedCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'self' data: https:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}
