import { OperatorCredential } from '../secrets/operator-credential';
import { metricsRegistry } from './metrics.registry';

export const METRICS_PATH = '/metrics';

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answer to GET /metrics in the api and the worker alike: the operator's
 * basic credentials (the queue dashboard's), then the registry in
 * Prometheus text format. A refusal is the error envelope, as everywhere.
 */
export async function answerMetrics(authorization: string | undefined, credential: OperatorCredential): Promise<MetricsAnswer> {
  if (!credential.verifyBasic(authorization)) {
    return {
      status: 401,
      headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Basic realm="stratus-operators"' },
      body: JSON.stringify({ error: { code: 'unauthorized', message: 'operator credentials required' } }),
    };
  }
  return { status: 200, headers: { 'content-type': metricsRegistry.contentType }, body: await metricsRegistry.metrics() };
}
