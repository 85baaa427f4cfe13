import { OperatorCredential } from '@stratus/core';
import { ALL_QUEUES } from '@stratus/queue';
import { testConfig, TestStack } from '@stratus/testing';

describe('queue dashboard', () => {
  let stack: TestStack;
  let password: string;

  beforeAll(async () => {
    password = OperatorCredential.create(testConfig().DATA_DIR, { onlyIfUnset: false })!;
    stack = await TestStack.start({}, ['api']);
  });

  afterAll(() => stack?.stop());

  const basic = (user: string, pass: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });

  it.each([
    ['no credentials', {}],
    ['a wrong password', basic('operator', 'guess')],
    ['another user', basic('admin', 'x')],
  ])('401 in the envelope for %s', async (_label, headers: Record<string, string>) => {
    const res = await stack.http.get('/admin/queues/api/queues', headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Basic');
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: 'operator credentials required' } });
  });

  it('shows every queue to the operator', async () => {
    const res = await stack.http.get('/admin/queues/api/queues', basic('operator', password));
    expect(res.status).toBe(200);
    expect(res.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([...ALL_QUEUES].sort());
  });
});
