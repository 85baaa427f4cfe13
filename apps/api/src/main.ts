import 'reflect-metadata';
import { loadConfig } from '@stratus/core';
import cluster from 'node:cluster';
import { runApiCluster } from './api.cluster';
import { STOP_SIGNALS, stopOnSignals } from './api.shutdown';

async function main(): Promise<void> {
  const config = loadConfig();
  // Several api processes share one port through node:cluster: this first
  // process holds the socket and hands out connections, the others serve.
  if (cluster.isPrimary && config.API_PROCESSES > 1) return runApiCluster(config);
  // A stop signal while the app is built is held, then acted on as a stop.
  let early: string | null = null;
  const hold = (signal: string) => (early ??= signal);
  for (const signal of STOP_SIGNALS) process.on(signal, hold);
  // Loaded here, not at the top: the cluster's first process never builds the app.
  const { createApi } = await import('./api.bootstrap');
  const app = await createApi();
  const stop = stopOnSignals(app, config.SHUTDOWN_TIMEOUT_MS);
  for (const signal of STOP_SIGNALS) process.off(signal, hold);
  if (early) return stop(early);
  await app.listen(config.API_PORT, config.API_HOST);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
