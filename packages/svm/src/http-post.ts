import { connect as connectTcp, isIP, type Socket } from 'node:net'
import { type ConnectionOptions, connect as connectTls } from 'node:tls'

/** An HTTP response with its body as text. */
export type HttpResponse = {
  status: number
  statusText: string
  headers: Record<string, string>
  text: string
}

/** Options of {@link createHttpPost}. */
export type HttpPostOptions = {
  headers?: Record<string, string> | undefined
  timeoutMs: number
  /** TLS options for https URLs (a private CA, a client certificate). */
  tls?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'> | undefined
}

const MAX_HEAD_BYTES = 64 * 1024
const CRLF = Buffer.from('\r\n')
const HEAD_END = Buffer.from('\r\n\r\n')

type Exchange = {
  resolve(response: HttpResponse): void
  reject(error: Error): void
  /** Whether any byte of the response arrived (a reused connection that got none may be retried). */
  answered: boolean
}

type Head = { status: number; statusText: string; headers: Record<string, string>; keepAlive: boolean }

type BodyMode =
  | { kind: 'length'; remaining: number }
  /** `left`: bytes of the current chunk still to come; `crlf`: its closing CRLF still to come. */
  | { kind: 'chunked'; left: number; crlf: boolean }
  | { kind: 'close' }

/**
 * A small HTTP/1.1 client for one endpoint: POSTs a JSON body over keep-alive connections (one
 * request at a time on each, no pipelining) and resolves with the whole response. Responses may be
 * Content-Length, chunked or close-delimited; informational (1xx) responses are skipped. A request
 * that a reused connection drops before any response byte (the server closed it while idle) is
 * sent once more on a new connection (the calls sent are safe to repeat: simulations, status reads,
 * and a signed transaction, which the cluster lands once). It does a fraction of `node:http`'s
 * per-request work (no streams, agent or per-request timers on the socket), which shows when the
 * RPC round trip is most of a verify: see packages/svm/README.md, "RPC".
 */
export function createHttpPost(
  url: string,
  options: HttpPostOptions,
): (body: string) => Promise<HttpResponse> {
  const target = new URL(url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new TypeError(`unsupported RPC URL protocol ${target.protocol}`)
  }
  const secure = target.protocol === 'https:'
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const port = Number(target.port || (secure ? 443 : 80))
  const headers: Record<string, string> = {
    host: target.host,
    accept: 'application/json',
    'content-type': 'application/json; charset=utf-8',
  }
  if (target.username || target.password) {
    const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/[\r\n:]/.test(name) || /[\r\n]/.test(value)) {
      throw new TypeError(`invalid HTTP header ${JSON.stringify(name)}`)
    }
    headers[name.toLowerCase()] = value
  }
  const headPrefix = `POST ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}content-length: `
  const idle: Connection[] = []

  const open = (): Connection =>
    new Connection(
      secure
        ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...options.tls })
        : connectTcp({ host, port }),
      (connection) => {
        const at = idle.indexOf(connection)
        if (at !== -1) {
          idle.splice(at, 1)
        }
      },
    )

  const send = (body: string, retry: boolean): Promise<HttpResponse> => {
    let connection = idle.pop()
    const reused = connection !== undefined
    connection ??= open()
    const request = `${headPrefix}${Buffer.byteLength(body)}\r\n\r\n${body}`
    return new Promise<HttpResponse>((resolve, reject) => {
      const exchange: Exchange = { resolve, reject, answered: false }
      const timer = setTimeout(
        () => connection.fail(new Error(`RPC request timed out after ${options.timeoutMs} ms`), false),
        options.timeoutMs,
      )
      timer.unref()
      connection.start(exchange, request, (reusable) => {
        clearTimeout(timer)
        if (reusable) {
          idle.push(connection)
        }
      })
    }).catch((error: unknown) => {
      // The server closed an idle connection as we wrote to it: nothing reached it.
      if (reused && retry && (error as { unanswered?: boolean }).unanswered === true) {
        return send(body, false)
      }
      throw error
    })
  }
  return (body) => send(body, true)
}

/** One keep-alive connection and the response being read on it. */
class Connection {
  private exchange: Exchange | undefined
  private done: ((reusable: boolean) => void) | undefined
  private buffer: Buffer = Buffer.alloc(0)
  private head: Head | undefined
  private body: BodyMode | undefined
  private chunks: Buffer[] = []
  private closed = false

  constructor(
    private readonly socket: Socket,
    private readonly onClose: (connection: Connection) => void,
  ) {
    socket.setNoDelay(true)
    socket.on('data', (data: Buffer) => this.receive(data))
    socket.on('error', (error) => this.fail(error))
    socket.on('close', () => this.end())
  }

  start(exchange: Exchange, request: string, done: (reusable: boolean) => void) {
    this.exchange = exchange
    this.done = done
    if (this.closed) {
      this.fail(new Error('the RPC server closed the connection'))
      return
    }
    this.socket.ref()
    this.socket.write(request)
  }

  /** Closes the connection and rejects the request on it; `retryable` unless it timed out. */
  fail(error: Error, retryable = true) {
    this.close()
    const { exchange, done } = this
    if (exchange) {
      this.reset()
      done?.(false)
      exchange.reject(retryable && !exchange.answered ? Object.assign(error, { unanswered: true }) : error)
    }
  }

  private close() {
    if (!this.closed) {
      this.closed = true
      this.socket.destroy()
      this.onClose(this)
    }
  }

  private reset() {
    this.exchange = undefined
    this.done = undefined
    this.head = undefined
    this.body = undefined
    this.chunks = []
  }

  private end() {
    // A close-delimited body ends with the connection.
    if (this.exchange && this.head && this.body?.kind === 'close') {
      this.close()
      this.finish(false)
      return
    }
    this.fail(new Error('the RPC server closed the connection'))
  }

  private finish(reusable: boolean) {
    const { exchange, done } = this
    const response = this.respond()
    this.reset()
    if (reusable) {
      this.socket.unref()
    }
    done?.(reusable)
    exchange?.resolve(response)
  }

  private receive(data: Buffer) {
    if (!this.exchange) {
      // Bytes nobody asked for: the connection is out of step.
      this.close()
      return
    }
    this.exchange.answered = true
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data])
    try {
      this.parse()
    } catch (error) {
      this.fail(error as Error)
    }
  }

  private parse() {
    while (this.exchange) {
      if (!this.head) {
        const end = this.buffer.indexOf(HEAD_END)
        if (end === -1) {
          if (this.buffer.length > MAX_HEAD_BYTES) {
            throw new Error('RPC response headers too large')
          }
          return
        }
        const head = parseHead(this.buffer.toString('latin1', 0, end))
        this.buffer = this.buffer.subarray(end + HEAD_END.length)
        if (head.status >= 100 && head.status < 200) {
          continue
        }
        this.head = head
        this.body = bodyModeOf(head)
      }
      const body = this.body as BodyMode
      if (body.kind === 'close') {
        this.chunks.push(this.buffer)
        this.buffer = Buffer.alloc(0)
        return
      }
      if (body.kind === 'length') {
        const take = Math.min(body.remaining, this.buffer.length)
        this.chunks.push(this.buffer.subarray(0, take))
        this.buffer = this.buffer.subarray(take)
        body.remaining -= take
        if (body.remaining > 0) {
          return
        }
      } else if (!this.readChunks(body)) {
        return
      }
      // Leftover bytes would belong to no request: such a connection is not reused.
      const reusable = (this.head as Head).keepAlive && this.buffer.length === 0
      if (!reusable) {
        this.close()
      }
      this.finish(reusable)
    }
  }

  /** Reads chunked data as it arrives; true once the last chunk and the trailers are in. */
  private readChunks(body: { kind: 'chunked'; left: number; crlf: boolean }): boolean {
    for (;;) {
      if (body.left > 0) {
        const take = Math.min(body.left, this.buffer.length)
        this.chunks.push(this.buffer.subarray(0, take))
        this.buffer = this.buffer.subarray(take)
        body.left -= take
        if (body.left > 0) {
          return false
        }
        body.crlf = true
      }
      if (body.crlf) {
        if (this.buffer.length < 2) {
          return false
        }
        if (this.buffer[0] !== 13 || this.buffer[1] !== 10) {
          throw new Error('bad chunk in the RPC response')
        }
        this.buffer = this.buffer.subarray(2)
        body.crlf = false
      }
      const lineEnd = this.buffer.indexOf(CRLF)
      if (lineEnd === -1) {
        return false
      }
      const size = Number.parseInt(this.buffer.toString('latin1', 0, lineEnd).split(';')[0] ?? '', 16)
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new Error('bad chunk size in the RPC response')
      }
      if (size === 0) {
        // Then an empty line, or trailers ending with one.
        const after = lineEnd + 2
        let end: number
        if (this.buffer.length >= after + 2 && this.buffer[after] === 13 && this.buffer[after + 1] === 10) {
          end = after + 2
        } else {
          const trailersEnd = this.buffer.indexOf(HEAD_END, after)
          if (trailersEnd === -1) {
            return false
          }
          end = trailersEnd + HEAD_END.length
        }
        this.buffer = this.buffer.subarray(end)
        return true
      }
      this.buffer = this.buffer.subarray(lineEnd + 2)
      body.left = size
    }
  }

  private respond(): HttpResponse {
    const head = this.head as Head
    return {
      status: head.status,
      statusText: head.statusText,
      headers: head.headers,
      text: Buffer.concat(this.chunks).toString('utf8'),
    }
  }
}

function parseHead(text: string): Head {
  const lines = text.split('\r\n')
  const match = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0] ?? '')
  if (!match) {
    throw new Error('malformed RPC response status line')
  }
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value
    }
  }
  const connection = headers.connection?.toLowerCase() ?? ''
  const keepAlive = match[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive')
  return { status: Number(match[2]), statusText: match[3] ?? '', headers, keepAlive }
}

function bodyModeOf(head: Head): BodyMode {
  if (head.status === 204 || head.status === 304) {
    return { kind: 'length', remaining: 0 }
  }
  if (head.headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    return { kind: 'chunked', left: 0, crlf: false }
  }
  const length = head.headers['content-length']
  if (length !== undefined) {
    const remaining = Number(length)
    if (!Number.isSafeInteger(remaining) || remaining < 0) {
      throw new Error('bad Content-Length in the RPC response')
    }
    return { kind: 'length', remaining }
  }
  head.keepAlive = false
  return { kind: 'close' }
}
