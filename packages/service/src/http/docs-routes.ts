import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Hono } from 'hono'

// The files of swagger-ui-dist the page needs, served from the installed package so `/docs`
// works without internet (docs/service.md "API documentation").
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

/** Options of {@link createDocsRoutes}. */
export type DocsRoutesOptions = {
  /** Where the page loads the OpenAPI document from (default `/api/v1/openapi.json`). */
  specUrl?: string
}

/**
 * The API documentation at `/docs`: Swagger UI with its script, styles and icon served from the
 * service itself under `/docs/assets/` (no CDN), behind a Content-Security-Policy allowing this
 * origin only.
 */
export function createDocsRoutes(options: DocsRoutesOptions = {}): Hono {
  const specUrl = options.specUrl ?? '/api/v1/openapi.json'
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const cache = new Map<string, Promise<Buffer>>()
  const app = new Hono()
  app.get('/docs', (c) =>
    c.html(renderPage(), 200, {
      'Content-Security-Policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'",
    }),
  )
  app.get('/docs/assets/docs-init.js', (c) =>
    c.body(renderInit(specUrl), 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  )
  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file')
    const type = ASSETS[file]
    if (!type) {
      return c.notFound()
    }
    let content = cache.get(file)
    if (!content) {
      content = readFile(join(root, file))
      cache.set(file, content)
    }
    return c.body(new Uint8Array(await content), 200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=86400',
    })
  })
  return app
}

function renderPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate merchant service API</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body>
</html>
`
}

function renderInit(specUrl: string): string {
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true });\n`
}
