import { OperatorCredential } from '@stratus/core';
import { ALL_QUEUES, QUEUES, redisConnection } from '@stratus/queue';
import { createManaged, launchChromium, testConfig, testOutputDir, useSuite, waitFor, waitForDatabase } from '@stratus/testing';
import { Queue } from 'bullmq';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

/**
 * The queue dashboard as an operator sees it: headless Chromium against the
 * real api and worker, a job that failed for real, and its labels in words.
 */
describe('queue dashboard in a browser', () => {
  const password = OperatorCredential.create(testConfig().DATA_DIR, { onlyIfUnset: false })!;
  const s = useSuite();
  const shots = testOutputDir('dashboard-browser');
  let databases: Queue;
  let maintenance: Queue;
  let browser: Browser;
  const open: BrowserContext[] = [];

  // A fresh machine installs Chromium first (scripts/ensure-system-packages.sh --browser).
  beforeAll(async () => {
    browser = await launchChromium();
    const options = { connection: redisConnection(s.stack.env.REDIS_URL), prefix: s.stack.env.QUEUE_PREFIX };
    databases = new Queue(QUEUES.databases, options);
    maintenance = new Queue(QUEUES.maintenance, options);
  }, 15 * 60_000);

  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await databases?.close();
    await maintenance?.close();
    await browser?.close();
  });

  const dashboard = (path = '') => `${s.stack.http.baseUrl}/admin/queues${path}`;

  /** A browser context of its own, logged in as the operator by basic auth (or with `credentials`, or none); CSP violations recorded. */
  async function browse(credentials: { username: string; password: string } | false = { username: 'operator', password }): Promise<{ page: Page; refused: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(credentials ? { httpCredentials: credentials } : {}) });
    open.push(context);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/.test(m.text())) refused.push(m.text());
    });
    return { page, refused };
  }

  /** Generous: the page renders on a loaded machine after its scripts, translations and first poll. */
  const shown = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 60_000 });

  /** Every label in words: a translation that did not load shows its key (`MENU.QUEUES`, `QUEUE.STATUS.ALL`). */
  async function expectLabels(page: Page, labels: RegExp[]): Promise<void> {
    // bull-board renders nothing before its translations load or fail: once the page shows data, any key shown stays.
    const text = await page.locator('body').innerText();
    expect(text.match(/\b[A-Z][A-Z_]+(?:\.[A-Z][A-Z_-]*)+\b/g) ?? []).toEqual([]);
    for (const label of labels) await shown(page.getByText(label).first());
  }

  /** Only bull-board's Google Fonts stylesheet is refused: the page loads nothing from another site. */
  function expectOnlyFontsRefused(refused: string[]): void {
    expect(refused.filter((r) => !r.includes('https://fonts.googleapis.com/'))).toEqual([]);
  }

  it.each([
    ['no credentials', false],
    ['a wrong password', { username: 'operator', password: 'guess' }],
  ] as const)('is refused with %s (401, nothing rendered)', async (_label, credentials) => {
    const { page } = await browse(credentials);
    // Without credentials headless Chromium has nobody to ask for them, and the navigation itself fails: the 401 is what the server said.
    const [res] = await Promise.all([page.waitForResponse(dashboard()), page.goto(dashboard()).catch(() => undefined)]);
    expect(res.status()).toBe(401);
    expect(res.headers()['www-authenticate']).toBe('Basic realm="stratus-operators"');
    expect(await page.locator('body').innerText()).not.toContain('Bull Dashboard');
  });

  it('shows every queue and the job schedulers, labelled in words', async () => {
    const { page, refused } = await browse();
    const res = await page.goto(dashboard());
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    const sidebar = page.locator('nav, aside').first();
    for (const name of ALL_QUEUES) await shown(sidebar.getByText(name, { exact: true }));
    await expectLabels(page, [/^Queues$/i, /^All$/i, /^Failed$/i, /^Completed$/i]);
    await page.screenshot({ path: join(shots, 'queues.png'), fullPage: true });

    // The reconcilers and the outbox relay are BullMQ job schedulers on the maintenance queue.
    const schedulers = await waitFor(
      'the worker to register its job schedulers',
      async () => {
        const list = await maintenance.getJobSchedulers();
        return list.length > 0 ? list : undefined;
      },
      { timeoutMs: 60_000 },
    );
    await page.goto(dashboard('/job-schedulers'));
    for (const { key } of schedulers) await shown(page.getByText(key, { exact: true }).first());
    await expectLabels(page, [/^Schedulers$/i]);
    await page.screenshot({ path: join(shots, 'schedulers.png'), fullPage: true });
    expectOnlyFontsRefused(refused);
  });

  it('shows a failed job with its stack trace, and retries it', async () => {
    // A real failure: the host has no pgvector, so the create job fails for good (UnrecoverableError).
    const created = await createManaged(s.api, 'databases', { name: 'pg-vector', extensions: ['vector'] });
    await waitForDatabase(s.api, 'databases', created.body.id, ['error']);
    const jobId = `database-create-postgres-${created.body.id}-g1`;
    await waitFor(`${jobId} to be failed`, async () => (await databases.getJobState(jobId)) === 'failed', { timeoutMs: 60_000 });

    const { page, refused } = await browse();
    await page.goto(dashboard(`/queue/${QUEUES.databases}?status=failed`));
    const link = page.locator(`a[href*="/${jobId}?"]`);
    // The job's card: the innermost card holding its link (bull-board's class names carry a build hash after `card-`).
    const card = page.locator('div[class*="card-"]', { has: link }).last();
    await shown(card);
    for (const tab of ['Error', 'Data', 'Progress', 'Options', 'Logs']) await shown(card.getByRole('tab', { name: tab, exact: true }));
    // The trace itself, down to the one place that decides a driver error is final.
    const trace = card.locator('code.stacktrace');
    await waitFor('the stack trace', async () => /withDriverErrors/.test((await trace.textContent()) ?? ''), { timeoutMs: 60_000 });
    expect(await trace.textContent()).toMatch(/^UnrecoverableError: extension pgvector is not available for PostgreSQL \d+ on this host\n\s+at /);
    await expectLabels(page, [/^Failed$/i, /^Retry all$/]);
    await page.screenshot({ path: join(shots, 'failed-job.png'), fullPage: true });

    // Retry is an icon; its name is in its tooltip.
    const retry = card.locator('button:has(svg.lucide-refresh-cw)');
    await retry.hover();
    await shown(page.getByText('Retry', { exact: true }));
    await retry.click();
    // bull-board asks first (its "Confirm job actions" setting is on by default).
    await shown(page.getByText('Are you sure that you want to retry this job?'));
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    // Retried, the job runs again, finds the database already in `error` and completes: it leaves the failed list.
    await waitFor(`${jobId} to complete`, async () => (await databases.getJobState(jobId)) === 'completed', { timeoutMs: 60_000 });
    await link.waitFor({ state: 'detached', timeout: 60_000 });
    await page.goto(dashboard(`/queue/${QUEUES.databases}?status=completed`));
    await shown(page.getByText(jobId, { exact: true }).first());
    // Its data, as any job's: ids only.
    await shown(page.getByText('databaseId', { exact: false }).first());
    await expectLabels(page, [/^Completed$/i, /^Data$/]);
    await page.screenshot({ path: join(shots, 'retried-job.png'), fullPage: true });
    expectOnlyFontsRefused(refused);
  });

  it('labels in words when opened with the credentials in its URL', async () => {
    // http://operator:<password>@host/admin/queues: how a headless browser or a bookmark is given basic auth.
    const { page, refused } = await browse(false);
    const url = new URL(dashboard());
    url.username = 'operator';
    url.password = password;
    await page.goto(url.href);
    for (const name of ALL_QUEUES) await shown(page.getByText(name, { exact: true }).first());
    await expectLabels(page, [/^Queues$/i, /^All$/i, /^Failed$/i]);
    await page.screenshot({ path: join(shots, 'credentials-in-url.png'), fullPage: true });
    expectOnlyFontsRefused(refused);
  });
});
