// `serve` and its live view, through the built CLI: the address it prints opens the page and its API.
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverServes, startServe } from '../mcp/cli-process.js';

afterAll(killLeftoverServes);

describe('serve and the live view', () => {
  it('prints the view address with the token it made, and that token opens the API', async () => {
    const server = await startServe();
    try {
      const printed = /Watch the sessions in a browser:\n {2}(http:\/\/\S+\/view)#token=(\S+)\n/.exec(server.stdout());
      expect(printed, server.stdout()).not.toBeNull();
      const [, page, token] = printed!;
      expect(page).toBe(`http://127.0.0.1:${server.port}/view`);
      expect((await fetch(page!)).status).toBe(200);
      const api = await fetch(`${page}/api/sessions`, { headers: { authorization: `Bearer ${token}` } });
      expect(await api.json()).toEqual({ input: false, sessions: [] });
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('with --view-input says so, and the page is told it may type', async () => {
    const token = 'serve-view-input-token-0123456789';
    const server = await startServe(['--view-input'], { UNIFIED_EXEC_TOKEN: token });
    try {
      expect(server.stdout()).toContain('Watch the sessions in a browser (it can type into them: --view-input), at');
      expect(server.stdout()).toContain(`echo "http://127.0.0.1:${server.port}/view#token=$UNIFIED_EXEC_TOKEN"`);
      expect(server.stdout()).not.toContain(token);
      const api = await fetch(`http://127.0.0.1:${server.port}/view/api/sessions`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await api.json()).toMatchObject({ input: true });
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('with --no-view serves no page and prints no address', async () => {
    const token = 'serve-no-view-token-0123456789';
    const server = await startServe(['--no-view'], { UNIFIED_EXEC_TOKEN: token });
    try {
      expect(server.stdout()).not.toContain('/view');
      expect((await fetch(`http://127.0.0.1:${server.port}/view`)).status).toBe(401);
      const res = await fetch(`http://127.0.0.1:${server.port}/view`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(404);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });
});
