// Which of facilitator-sandbox's servers a preload runs in, from the script node started:
// 'standalone' (the CLI's `tollgate facilitator`), 'sandbox' (the service's `npm start`), or null
// (any other process the preload reaches through NODE_OPTIONS, such as the reference). Benchmark
// instrumentation only.
export function servingTag() {
  const script = process.argv[1] ?? ''
  if (script.includes('cli')) {
    return 'standalone'
  }
  return script.includes('service') ? 'sandbox' : null
}
