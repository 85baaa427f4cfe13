'use strict';
// The demo application of the `demo-web` image. It binds its port only once it
// is ready to serve, as cluster members must.
const http = require('node:http');
const os = require('node:os');
const { createHash } = require('node:crypto');

const host = process.env.HOST || '0.0.0.0';
const port = Number(process.env.PORT || 3000);
// `<installation>/<instance id>`: the provider's marker of the instance's processes.
const instanceId = (process.env.STRATUS_INSTANCE_ID || 'unknown').split('/').pop();
const started = Date.now();
let background = null;

function burn(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return x;
}

// Keeps one core `percent` busy for `seconds`, in 100 ms slices.
function load(percent, seconds) {
  if (background) clearInterval(background);
  const until = Date.now() + seconds * 1000;
  background = setInterval(() => {
    if (Date.now() > until) return clearInterval(background);
    burn(percent);
  }, 100);
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/') {
    return send(res, 200, { instance: instanceId, hostname: os.hostname(), pid: process.pid, uptime_ms: Date.now() - started });
  }
  if (url.pathname === '/health') return send(res, 200, { status: 'ok' });
  if (url.pathname === '/burn') {
    const ms = Math.min(Math.max(Number(url.searchParams.get('ms')) || 100, 0), 10_000);
    burn(ms);
    return send(res, 200, { instance: instanceId, burned_ms: ms });
  }
  // What the app itself counts of its CPU time (getrusage), to check what the provider measures of it.
  if (url.pathname === '/cpu') {
    const { user, system } = process.cpuUsage();
    return send(res, 200, { instance: instanceId, cpu_seconds: (user + system) / 1e6 });
  }
  if (url.pathname === '/load' && req.method === 'POST') {
    const percent = Math.min(Math.max(Number(url.searchParams.get('percent')) || 0, 0), 100);
    const seconds = Math.min(Math.max(Number(url.searchParams.get('seconds')) || 60, 0), 3600);
    load(percent, seconds);
    return send(res, 200, { instance: instanceId, percent, seconds });
  }
  send(res, 404, { error: { code: 'not_found', message: 'no such path' } });
});

// An upgrade request (WebSocket and the like) is answered 101 and every byte
// that follows is echoed back: enough to see a tunnel work end to end. A
// WebSocket key gets its proof (RFC 6455 4.2.2), as proxies check it.
server.on('upgrade', (req, socket, head) => {
  const key = req.headers['sec-websocket-key'];
  const accept = key ? `Sec-WebSocket-Accept: ${createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')}\r\n` : '';
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${req.headers.upgrade}\r\nConnection: Upgrade\r\n${accept}X-Instance: ${instanceId}\r\n\r\n`);
  if (head.length) socket.write(head);
  socket.pipe(socket);
  socket.on('error', () => socket.destroy());
});

server.keepAliveTimeout = 65_000;
server.listen(port, host);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
