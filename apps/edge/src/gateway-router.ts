import pLimit from 'p-limit';
import { canBind, certificateBlocks, PORT_BUSY, PORT_TAKEN } from '@stratus/core';
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { RouteSpec } from './edge.types';
import { gatewayNames, renderGatewayConfig } from './gateway.config';
import { EdgeLog, HaproxyProcess, haproxyUser } from './haproxy.process';
import { runtimeBatch } from './haproxy.runtime';

export interface GatewayRouterOptions {
  /** HAProxy's files live here (config, pid, certificate files). */
  dir: string;
  /** The gateway host's address. */
  host: string;
  /** GATEWAY_PORT_RANGE: every port of it is held, whether a route uses it or not. */
  range: { from: number; to: number };
  threads: number;
  log?: EdgeLog;
  /** HAProxy crashed, or serves again after the restart that follows: `status` changed. */
  onChange?: () => void;
}

/** Starts retried when a port is taken between the probe and HAProxy's own bind. */
const START_ATTEMPTS = 5;
const RESTART_DELAY_MS = 1_000;
/** The routes map's value for a port without a route. */
const NO_ROUTE = '-';
/** `applied`'s mark for a port whose route may still serve: taking it down failed. */
const NOT_TAKEN_DOWN = 'not taken down';

/**
 * The gateway's TCP routes: an HAProxy process of their own (a restart of
 * the proxy hosts' HAProxy does not cut them) that holds every port of the
 * range from its start (gateway.config.ts). A route is a few runtime
 * commands on its port's frontends and server; nothing is reloaded while
 * HAProxy runs. Ports something else had bound at the start are left out
 * and reported (`portsTaken`): routes on them answer PORT_TAKEN.
 */
export class GatewayRouter {
  private readonly haproxy: HaproxyProcess;
  private readonly certDir: string;
  private held = new Set<number>();
  private taken: number[] = [];
  /** Each serving port's route, by `keyOf`: a route whose key changed is taken down and set up again. */
  private readonly applied = new Map<number, string>();
  /** Where each applied port's route sends connections now: a route that changes only there is moved in place (`retarget`). */
  private readonly targets = new Map<number, Pick<RouteSpec, 'targetIp' | 'targetPort'>>();
  /** The last routes asked for: what a restart after a crash serves again. */
  private routes: RouteSpec[] = [];
  private closed = false;
  /** apply and close run one at a time, in call order (a failed one does not stop the next). */
  private readonly serially = pLimit(1);

  constructor(private readonly opts: GatewayRouterOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.certDir = join(opts.dir, 'certs');
    this.haproxy = new HaproxyProcess({
      dir: opts.dir,
      name: 'gateway',
      log: opts.log,
      // What setting routes up and down makes HAProxy say, a line per port
      // (a removed route's backend "has no server available" is an ALERT).
      routine: /\[(WARNING|ALERT)\].*(Paused frontend|Resumed frontend|leaving forced maintenance|going DOWN for maintenance|has no server available)/,
      onCrash: () => {
        opts.onChange?.();
        setTimeout(() => {
          if (this.closed) return;
          this.apply(this.routes)
            .catch(() => undefined)
            .finally(() => opts.onChange?.());
        }, RESTART_DELAY_MS).unref();
      },
    });
  }

  /** 'ok' while HAProxy holds the range, else why not; null before the first apply. */
  get status(): string | null {
    return this.haproxy.status;
  }

  /** Ports of the range HAProxy does not hold (taken by something else when it started), ascending. */
  get portsTaken(): number[] {
    return this.taken;
  }

  /**
   * Serves exactly `routes` from now on: new ones are set up, gone or
   * changed ones taken down (their open connections cut), the rest left
   * alone. Per port: 'ok' once it serves, else why not.
   */
  apply(routes: RouteSpec[]): Promise<Record<number, string>> {
    return this.serially(async () => {
      this.routes = routes;
      if (this.closed) return {};
      if (!this.haproxy.serving) {
        const started = await this.start();
        if (started !== 'ok') return Object.fromEntries(routes.map((r) => [r.port, started]));
      }
      const wanted = new Map(routes.map((r) => [r.port, r]));
      for (const [port, applied] of this.applied) {
        const next = wanted.get(port);
        if (next && keyOf(next) !== applied && applied === keyOf({ ...next, ...this.targets.get(port) }) && (await this.retarget(next))) continue;
        if (!next || keyOf(next) !== applied) await this.takeDown(port);
      }
      const results: Record<number, string> = {};
      for (const route of routes) {
        if (route.port < this.opts.range.from || route.port > this.opts.range.to)
          results[route.port] = `the port is outside the edge's GATEWAY_PORT_RANGE (${this.opts.range.from}-${this.opts.range.to})`;
        else if (!this.held.has(route.port)) results[route.port] = PORT_TAKEN;
        else if (this.applied.get(route.port) === NOT_TAKEN_DOWN) results[route.port] = `haproxy: the port's previous route could not be taken down`;
        else if (this.applied.has(route.port)) results[route.port] = 'ok';
        else results[route.port] = await this.setUp(route);
      }
      return results;
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.serially(() => this.haproxy.stop());
  }

  /** Starts HAProxy on every free port of the range, with every port paused. */
  private async start(): Promise<string> {
    this.applied.clear();
    // Probed below: ours, or one a crashed edge left, must not count as something else's.
    await this.haproxy.stop();
    await this.haproxy.stopStale();
    const { from, to } = this.opts.range;
    const ports = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const free = await freeOf(this.opts.host, ports);
    const placeholder = this.placeholderCert();
    let started = 'not started';
    for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
      rmSync(this.certDir, { recursive: true, force: true });
      mkdirSync(this.certDir, { mode: 0o700 });
      // One file name per port, all the same placeholder: HAProxy keys certificates by file name, so each port's can be swapped alone.
      for (const port of free) symlinkSync(placeholder, this.certFile(port));
      const none = free.map((p) => `${p} ${NO_ROUTE}\n`).join('');
      writeFileSync(this.routesMap, none, { mode: 0o600 });
      writeFileSync(this.certsMap, none, { mode: 0o600 });
      started = await this.haproxy.start(
        renderGatewayConfig({
          host: this.opts.host,
          ports: free,
          threads: this.opts.threads,
          socket: this.haproxy.socket,
          certFile: (p) => this.certFile(p),
          routesMap: this.routesMap,
          certsMap: this.certsMap,
          runAs: haproxyUser(),
        }),
      );
      // Taken between the probe and HAProxy's bind: leave that one out too.
      const lost = /cannot bind socket.*:(\d+)\]/.exec(started)?.[1];
      if (started === 'ok' || !lost || !free.includes(Number(lost))) break;
      free.splice(free.indexOf(Number(lost)), 1);
    }
    this.held = new Set(started === 'ok' ? free : []);
    this.taken = ports.filter((p) => !this.held.has(p));
    if (started !== 'ok') return started;
    const answers = await runtimeBatch(
      this.haproxy.socket,
      free.flatMap((p) => [`disable frontend ${gatewayNames(p).plain}`, `disable frontend ${gatewayNames(p).tls}`]),
    );
    const unexpected = answers.filter((a) => !/already disabled/.test(a));
    if (unexpected.length) {
      await this.haproxy.stop();
      return `haproxy: cannot pause the unused ports: ${unexpected[0]}`;
    }
    if (this.taken.length) this.opts.log?.('warn', 'gateway ports held by another process are left out', { ports: this.taken });
    this.opts.log?.('info', 'gateway HAProxy holds the port range', { from, to, held: free.length });
    return 'ok';
  }

  private async setUp(route: RouteSpec): Promise<string> {
    const n = gatewayNames(route.port);
    if (isIP(route.targetIp) === 0 || !Number.isInteger(route.targetPort) || route.targetPort < 1 || route.targetPort > 65535) {
      return `invalid target ${route.targetIp}:${route.targetPort}`;
    }
    try {
      const addr = await this.haproxy.command(`set server ${n.server} addr ${route.targetIp} port ${route.targetPort}`);
      if (!/changed|no need to change/.test(addr)) throw new Error(addr.trim());
      if (route.tls) await this.loadCertificate(route.port, route.tls);
      const unexpected = (
        await runtimeBatch(this.haproxy.socket, [
          `set map ${this.routesMap} ${route.port} ${route.id}`,
          `set map ${this.certsMap} ${route.port} ${route.tls ? leafFingerprint(route.tls.certPem) : NO_ROUTE}`,
          `set server ${n.server} state ready`,
          `enable frontend ${route.tls ? n.tls : n.plain}`,
        ])
      ).filter((a) => !/already enabled/.test(a));
      if (unexpected.some((a) => a.includes('Failed to resume frontend'))) {
        await this.takeDown(route.port);
        return PORT_BUSY;
      }
      if (unexpected.length) throw new Error(unexpected.join(' '));
      this.applied.set(route.port, keyOf(route));
      this.targets.set(route.port, { targetIp: route.targetIp, targetPort: route.targetPort });
      return 'ok';
    } catch (err) {
      // Back to paused, whatever part was done.
      await this.takeDown(route.port);
      return `haproxy: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * The same route (id, port, certificate) to another target: new
   * connections go there from now on, and the open ones stay with the
   * target they reached (the route's own, and its project's: a route is
   * moved in place only when its target becomes the balancer of a cluster
   * made of that target), so the port never refuses and nothing is cut.
   * False when HAProxy would not: the route is then taken down and set up.
   */
  private async retarget(route: RouteSpec): Promise<boolean> {
    const n = gatewayNames(route.port);
    if (isIP(route.targetIp) === 0 || !Number.isInteger(route.targetPort) || route.targetPort < 1 || route.targetPort > 65535) return false;
    try {
      const addr = await this.haproxy.command(`set server ${n.server} addr ${route.targetIp} port ${route.targetPort}`);
      if (!/changed|no need to change/.test(addr)) return false;
    } catch {
      return false;
    }
    this.applied.set(route.port, keyOf(route));
    this.targets.set(route.port, { targetIp: route.targetIp, targetPort: route.targetPort });
    return true;
  }

  /** Swaps the port's certificate file in HAProxy's memory for the route's. */
  private async loadCertificate(port: number, tls: NonNullable<RouteSpec['tls']>): Promise<void> {
    const file = this.certFile(port);
    // The certificates only, then the key: HAProxy takes the first key it reads. A PEM has no
    // blank line; one would end the payload and let what follows be read as a command.
    const pem = `${certificateBlocks(tls.certPem)}\n${tls.keyPem}`
      .split(/\r?\n/)
      .filter((l) => l.trim())
      .join('\n');
    try {
      const set = await this.haproxy.command(`set ssl cert ${file} <<\n${pem}\n\n`);
      if (!/Transaction (created|updated)/.test(set)) throw new Error(set.trim());
      const commit = await this.haproxy.command(`commit ssl cert ${file}`);
      if (!/Success!/.test(commit)) throw new Error(commit.trim());
    } catch (err) {
      // HAProxy has one certificate transaction at a time: left open, it would refuse every other port's.
      await this.haproxy.command(`abort ssl cert ${file}`).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Pauses the port (connections refused from now on) and cuts the
   * connections its route had open. Never throws: a failure is logged and
   * the port marked to be taken down again at the next apply.
   */
  private async takeDown(port: number): Promise<void> {
    const n = gatewayNames(port);
    let answer: string;
    try {
      const unexpected = (
        await runtimeBatch(this.haproxy.socket, [
          `disable frontend ${n.plain}`,
          `disable frontend ${n.tls}`,
          `set map ${this.routesMap} ${port} ${NO_ROUTE}`,
          `set map ${this.certsMap} ${port} ${NO_ROUTE}`,
          `set server ${n.server} state maint`,
          `shutdown sessions server ${n.server}`,
        ])
      ).filter((a) => !/already disabled/.test(a));
      if (!unexpected.length) {
        this.applied.delete(port);
        return;
      }
      answer = unexpected.join(' ');
    } catch (err) {
      answer = err instanceof Error ? err.message : String(err);
    }
    // Still counted as applied, under a key no route has: the next apply takes it down again.
    this.applied.set(port, NOT_TAKEN_DOWN);
    this.opts.log?.('error', 'cannot take a gateway route down', { port, answer });
  }

  private get routesMap(): string {
    return join(this.opts.dir, 'routes.map');
  }

  private get certsMap(): string {
    return join(this.opts.dir, 'certs.map');
  }

  private certFile(port: number): string {
    return join(this.certDir, `${port}.pem`);
  }

  /** A self-signed certificate no client is meant to see (its port's TLS frontend is paused until a route brings its own). */
  private placeholderCert(): string {
    const file = join(this.opts.dir, 'placeholder.pem');
    if (existsSync(file)) return file;
    const key = join(this.opts.dir, 'placeholder.key');
    const cert = join(this.opts.dir, 'placeholder.crt');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '36500',
        '-subj',
        '/CN=stratus-gateway-unused-port',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'pipe' },
    );
    writeFileSync(file, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'), { mode: 0o600 });
    rmSync(key);
    rmSync(cert);
    return file;
  }
}

/** A route's identity and everything HAProxy was told for it (the key as a digest: no PEM kept around twice). */
function keyOf(route: RouteSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([route.id, route.targetIp, route.targetPort, route.tls?.certPem ?? null, route.tls?.keyPem ?? null]))
    .digest('hex');
}

/** What HAProxy's `ssl_f_sha1,hex` gives for the certificate it presents: the first block's (the leaf's) SHA-1, upper-case hex. */
function leafFingerprint(certPem: string): string {
  return new X509Certificate(certificateBlocks(certPem)).fingerprint.replace(/:/g, '');
}

/** The ports of `ports` nothing has bound on `host` right now. */
async function freeOf(host: string, ports: number[]): Promise<number[]> {
  const free: number[] = [];
  for (const port of ports) if (await canBind(host, port)) free.push(port);
  return free;
}
