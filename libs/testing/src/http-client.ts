export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A thin fetch wrapper for tests: JSON in, parsed JSON (or text) out, never throws on status. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  with(headers: Record<string, string>): HttpClient {
    return new HttpClient(this.baseUrl, { ...this.headers, ...headers });
  }

  get<T = any>(path: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
    return this.request('GET', path, undefined, headers);
  }

  post<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    return this.request('POST', path, body, headers);
  }

  delete<T = any>(path: string, headers: Record<string, string> = {}): Promise<Reply<T>> {
    return this.request('DELETE', path, undefined, headers);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const init: RequestInit = { method, headers: { ...this.headers, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }
}
