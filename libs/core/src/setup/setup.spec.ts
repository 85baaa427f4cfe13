import { Credentials, firstProjectNotice } from './setup';

describe('firstProjectNotice', () => {
  const created: Credentials = {
    project_id: 'b3f0c9a4-0d55-4a53-9a0e-6f1f3c1d2e77',
    project_name: 'default',
    api_key: 'sk_live_key_value',
    bearer_token: 'eyJ.token.value',
    token_expires_at: new Date(0).toISOString(),
    operator_password: 'operator-password-value',
  };
  const secrets = [created.api_key, created.bearer_token, created.operator_password!];
  const file = '/srv/stratus/credentials.json';

  it('shows the secrets on a terminal, with where they are kept', () => {
    const text = firstProjectNotice(created, file, true);
    for (const secret of secrets) expect(text).toContain(secret);
    expect(text).toContain(file);
  });

  it('names only the file when the output is not a terminal', () => {
    const text = firstProjectNotice(created, file, false);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain(file);
    expect(text).toContain(created.project_id);
  });
});
