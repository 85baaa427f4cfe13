import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A fault to inject: the next `times` requests that match get `status` instead of the service's answer. */
export interface Fault {
  method?: string;
  /** Matched against the path as the service sees it (without the proxy's port prefix), query included. */
  path: RegExp;
  status: number;
  retryAfter?: string;
  times: number;
  /** Forward the request first and drop the service's answer: the call reached the cloud, its answer was lost. */
  afterForward?: boolean;
  body?: unknown;
}

/** What the proxy saw: each request and the status it answered. */
export interface ProxiedCall {
  method: string;
  path: string;
  status: number;
  injected: boolean;
}

/**
 * FAULT-INJECTING PROXY in front of the OpenStack testbed, for the fault
 * tests: the real services cannot be made to throttle (429), fail (503) or
 * expire a token on demand. It listens on 127.0.0.1 and forwards
 * `/<port>/<path>` to `127.0.0.1:<port>/<path>`; the catalog in every
 * token Keystone issues through it is rewritten to point back at it, so
 * every later call of the client passes it too. Test tree only.
 */
export class FaultInjectingProxy {
  private server: Server | null = null;
  private port = 0;
  private faults: Fault[] = [];
  readonly calls: ProxiedCall[] = [];

  /** Starts it; the Keystone URL to give the client. */
  async start(keystonePort = 5000): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/${keystonePort}/v3`;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  clear(): void {
    this.faults = [];
    this.calls.length = 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = /^\/(\d+)(\/.*)?$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(400).end();
      return;
    }
    const [, port, path = '/'] = m;
    const body = await readAll(req);
    const fault = this.faults.find((f) => f.times > 0 && (!f.method || f.method === req.method) && f.path.test(path));
    if (fault) fault.times--;
    if (fault && !fault.afterForward) return this.answerFault(req, res, path, fault);
    const upstream = await forward(Number(port), req, path, body);
    if (fault) return this.answerFault(req, res, path, fault);
    let payload = upstream.body;
    // The catalog of a new token points back at the proxy.
    if (req.method === 'POST' && path.startsWith('/v3/auth/tokens')) {
      payload = Buffer.from(payload.toString('utf8').replace(/http:\/\/127\.0\.0\.1:(\d+)/g, `http://127.0.0.1:${this.port}/$1`));
    }
    const headers: Record<string, string> = { ...upstream.headers, 'content-length': String(payload.length), connection: 'close' };
    delete headers['transfer-encoding'];
    this.calls.push({ method: req.method!, path, status: upstream.status, injected: false });
    res.writeHead(upstream.status, headers).end(payload);
  }

  private answerFault(req: IncomingMessage, res: ServerResponse, path: string, fault: Fault): void {
    this.calls.push({ method: req.method!, path, status: fault.status, injected: true });
    const body = JSON.stringify(fault.body ?? { error: { code: fault.status, message: 'injected by the fault-injecting proxy' } });
    res.writeHead(fault.status, { 'content-type': 'application/json', connection: 'close', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) }).end(body);
  }
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function forward(port: number, req: IncomingMessage, path: string, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: `127.0.0.1:${port}`, 'content-length': String(body.length) };
    const out = request({ host: '127.0.0.1', port, method: req.method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}
