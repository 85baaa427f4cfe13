import { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';

/**
 * Run first on bull-board's page: reload it once without credentials in its
 * URL. Opened as `http://operator:<password>@host/admin/queues` (how a
 * headless browser, a bookmark or a monitoring screenshot is given basic
 * auth), every URL the page builds from its `<base href>` carries them too,
 * and the Fetch standard refuses to request such a URL: the translations,
 * which bull-board fetches, never load and every label shows as its key
 * (`MENU.QUEUES`), while the queues, asked for with XMLHttpRequest, do. The
 * browser keeps the credentials it was given for the realm, so the clean URL
 * is answered without a prompt. (`document.URL`, not `location.href`:
 * Chromium leaves the credentials out of the latter only.)
 */
export const DROP_URL_CREDENTIALS = `(function(){var u=new URL(document.URL);if(u.username||u.password){u.username='';u.password='';location.replace(u.href)}})()`;

/**
 * What the page may load: only the dashboard's own files and API. This keeps
 * the operator's browser from fetching bull-board's Google Fonts stylesheet
 * (a third party learning when and where the dashboard is opened; on a closed
 * network a render-blocking request that cannot succeed), lets no other site
 * frame the page (its Retry, Clean and Obliterate buttons), and allows no
 * inline script but the one above, by its hash. bull-board sets inline
 * styles, hence `'unsafe-inline'` for styles only.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${createHash('sha256').update(DROP_URL_CREDENTIALS).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers and the script above on every answer of the dashboard's scope (its 401 included). */
export function hardenDashboardPage(scope: FastifyInstance): void {
  scope.addHook('onRequest', (_request, reply, done) => {
    reply.header('content-security-policy', DASHBOARD_CSP);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    // The dashboard's URLs name queues and job ids: none of it goes to another site.
    reply.header('referrer-policy', 'no-referrer');
    done();
  });
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
    return payload.replace('<head>', `<head>\n<script>${DROP_URL_CREDENTIALS}</script>`);
  });
}
