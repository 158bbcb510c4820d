/**
 * Raw HTTP/1.1 over node:net, for what fetch cannot send or observe: any Host header, a body that
 * is declared but never sent, a stalled body, and whether the server closed the connection.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Interim (1xx) status lines seen before the final response. */
  interim: number[];
}

export interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closed the connection (or it was reset): all bytes received, and the error if any. */
  closed: Promise<{ data: string; error?: NodeJS.ErrnoException }>;
  /** Resolves with the first complete final response (keep-alive connections stay open). */
  response(): Promise<RawResponse>;
}

export function rawConnect(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let error: NodeJS.ErrnoException | undefined;
    const waiters: Array<() => void> = [];
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      for (const w of waiters.splice(0)) w();
    });
    socket.on('error', (err) => (error = err));
    const closed = new Promise<{ data: string; error?: NodeJS.ErrnoException }>((r) =>
      socket.once('close', () => {
        for (const w of waiters.splice(0)) w();
        r(error ? { data, error } : { data });
      }),
    );
    const conn: RawConnection = {
      socket,
      received: () => data,
      closed,
      response: () =>
        new Promise((res, rej) => {
          const check = () => {
            const parsed = parseResponse(data);
            if (parsed) return res(parsed);
            if (socket.destroyed) return rej(new Error(`connection closed without a complete response: ${JSON.stringify(data.slice(0, 300))}`));
            waiters.push(check);
          };
          check();
        }),
    };
    socket.once('connect', () => resolve(conn));
    socket.once('error', reject);
  });
}

/** The first final response in `data`, or undefined while it is incomplete. */
export function parseResponse(data: string): RawResponse | undefined {
  let rest = data;
  const interim: number[] = [];
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    rest = rest.slice(end + 4);
    if (status >= 100 && status < 200) {
      interim.push(status);
      continue;
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      if (rest.length < Number(length)) return undefined;
      return { status, headers, body: rest.slice(0, Number(length)), interim };
    }
    if (headers['transfer-encoding'] === 'chunked') {
      const body = dechunk(rest);
      return body === undefined ? undefined : { status, headers, body, interim };
    }
    return { status, headers, body: rest, interim };
  }
}

function dechunk(text: string): string | undefined {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return undefined;
    const size = parseInt(rest.slice(0, eol), 16);
    if (size === 0) return out;
    if (rest.length < eol + 2 + size + 2) return undefined;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** One request head (lines joined with CRLF, blank line added). */
export function head(requestLine: string, headers: Record<string, string | number>): string {
  return `${requestLine}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}
