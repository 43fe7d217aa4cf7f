import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structuredOf } from './client-scenarios.js';
import { mcpTransport } from './cli-process.js';

// Secrets that the first name rule (KEY, SECRET, TOKEN, PASSWORD) let through, with values that say
// where they came from should one show up.
const SECRETS = {
  DATABASE_URL: 'postgres://u:pw-database-url@db.example:5432/app',
  MYSQL_PWD: 'pw-mysql-pwd',
  GH_PAT: 'github_pat_gh-pat',
  SENTRY_DSN: 'https://dsn-sentry@o1.ingest.sentry.example/2',
  NPM_CONFIG__AUTH: 'npm-config-auth',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/slack-webhook',
  CREDENTIALS: 'credentials-json',
  PASSWD: 'passwd-value',
};
// Look like secrets to a careless rule, but are not; a session needs them.
const KEPT = {
  SERVICE_URL: 'https://api.example.com:8443/v1',
  XAUTHORITY: '/run/user/1000/gdm/Xauthority',
  GIT_AUTHOR_NAME: 'Kept Author',
};

describe('the MCP stdio server started with secrets in its environment', () => {
  let client: Client;

  beforeAll(async () => {
    const transport = mcpTransport(['--structured-output'], { env: { ...SECRETS, ...KEPT } });
    client = new Client({ name: 'secret-env', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('passes none of them to a session, and keeps the look-alikes', async () => {
    const result = await client.callTool({
      name: 'exec_command',
      arguments: { cmd: 'env', login: false, tty: false, yield_time_ms: 10_000 },
    });
    const { output, exit_code: exitCode } = structuredOf<{ output: string; exit_code?: number }>(result);
    expect(exitCode).toBe(0);
    const names = new Set(output.split('\n').map((line) => line.slice(0, line.indexOf('='))));
    expect(Object.keys(SECRETS).filter((name) => names.has(name))).toEqual([]);
    expect(Object.values(SECRETS).filter((value) => output.includes(value))).toEqual([]);
    for (const [name, value] of Object.entries(KEPT)) expect(output).toContain(`${name}=${value}\n`);
    expect(output).toMatch(/^PATH=/m);
  });
});
