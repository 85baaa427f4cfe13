import { createServer } from 'node:net';

/** Whether nothing has `port` bound on `host` right now (a listen that is closed again at once). */
export function canBind(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
