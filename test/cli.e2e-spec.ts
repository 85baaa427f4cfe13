import { TestStack } from '@stratus/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/** The operator CLI, end to end: what it issues works against the running API, and revocation takes. */
describe('operator CLI', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
  });

  afterAll(() => stack?.stop());

  it('creates a project, an API key and a token that the API accepts; a revoked key stops working', async () => {
    const project = JSON.parse(stack.cli('project:create', 'cli-made'));
    expect(project).toEqual({ id: expect.any(String), name: 'cli-made' });
    expect(stack.cli('project:list')).toContain(`${project.id}  cli-made`);

    const key = JSON.parse(stack.cli('key:create', 'cli-made', '--user', 'alice'));
    expect(key).toEqual({ key_id: expect.any(String), api_key: expect.stringMatching(/^stk_/), project_id: project.id });
    const listed = await stack.http.get('/v1/instances', { 'x-api-key': key.api_key });
    expect(listed.status).toBe(200);

    const token = stack.cli('token:create', project.id, '--user', 'bob', '--ttl', '60').trim();
    const who = await stack.http.get('/api/cloud/auth/whoami', { authorization: `Bearer ${token}` });
    expect(who.body).toEqual({ project_id: project.id, user_id: 'bob' });

    stack.cli('key:revoke', key.key_id);
    // The API trusts a verified key for up to API_KEY_CACHE_TTL_MS (5 s) after its last check.
    await sleep(5_500);
    expect((await stack.http.get('/v1/instances', { 'x-api-key': key.api_key })).status).toBe(401);
  });

  it('fails with a message for a project that does not exist', () => {
    expect(() => stack.cli('key:create', 'no-such-project')).toThrow(/no project no-such-project/);
  });
});
