// The live view in a real browser: Debian's chromium driven by playwright-core (nothing downloaded). A person opens
// the page with the token, an agent starts a session over MCP, the person sees it appear, watches its output
// stream in, closes it from the page, and its process is gone; with --view-input, types into it.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { missingTools, titled } from '../helpers/needs.js';
import { startSession, startViewServer, TOKEN, type ViewServer } from './view-server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why the browser tests are skipped here (never under CI, which installs chromium: there a missing one fails). */
const SKIP = missingTools(CHROMIUM);
const SLOW = { timeout: 20_000, interval: 50 } as const;

/** The text the terminal shows (xterm's DOM renderer), spaces as spaces. */
async function terminalText(page: Page): Promise<string> {
  const rows = page.locator('#terminal .xterm-rows');
  if ((await rows.count()) === 0) return '';
  return (await rows.innerText()).replace(/\u00a0/g, ' ');
}

function processGone(pid: number): void {
  let alive = true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    alive = false;
  }
  if (alive) throw new Error(`process ${pid} is still there`);
}

describe.skipIf(SKIP !== undefined)(titled('the live view in a browser', SKIP), () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(() => browser?.close());

  async function open(view: ViewServer): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${view.origin}/view#token=${TOKEN}`);
    return page;
  }

  describe('read-only (the default)', () => {
    let view: ViewServer;
    beforeAll(async () => {
      view = await startViewServer();
    });
    afterAll(() => view?.close());

    it('keeps the token out of the address bar, and asks for one when it has none', async () => {
      const page = await open(view);
      await expect.poll(() => page.url(), SLOW).toBe(`${view.origin}/view`);
      expect(await page.evaluate('sessionStorage.getItem("unified-exec-view-token")')).toBe(TOKEN);
      await page.locator('#summary', { hasText: 'sessions' }).waitFor();
      expect(await page.locator('#mode').innerText()).toBe('read-only');
      await page.close();

      const bare = await browser.newPage();
      await bare.goto(`${view.origin}/view`);
      await bare.locator('#login').waitFor({ state: 'visible' });
      await bare.fill('#token', TOKEN);
      await bare.click('#login button[type=submit]');
      await bare.locator('#login').waitFor({ state: 'hidden' });
      await bare.locator('#summary', { hasText: 'sessions' }).waitFor();
      await bare.close();
    });

    it('shows a session an agent starts, streams its output, and closes it with its process', async () => {
      const page = await open(view);
      const agent = await view.connect('browser-agent');
      const session = await startSession(agent, {
        cmd: 'echo first-line-$((6 * 7)); while sleep 0.2; do echo tick-$((n += 1)); done',
        tty: true,
      });
      const item = page.locator(`li.session[data-session-id="${session.sessionId}"]`);
      await item.waitFor({ timeout: 20_000 });
      expect(await item.innerText()).toContain('browser-agent');
      await item.click();

      await vi.waitFor(async () => expect(await terminalText(page)).toContain('first-line-42'), SLOW);
      // Ticks keep coming while the page watches: streamed, not a snapshot.
      const lastTick = async () =>
        Math.max(0, ...[...(await terminalText(page)).matchAll(/tick-(\d+)/g)].map((m) => +m[1]!));
      const seen = await lastTick();
      await vi.waitFor(async () => expect(await lastTick()).toBeGreaterThan(seen + 2), SLOW);
      expect(await page.locator('#state').innerText()).toBe('running');

      await page.click('#close');
      await item.waitFor({ state: 'detached', timeout: 20_000 });
      await vi.waitFor(() => processGone(session.pid), SLOW);
      await vi.waitFor(async () => expect(await page.locator('#state').innerText()).toBe('closed'), SLOW);
      expect(await page.locator('#status').innerText()).toMatch(/ended|Closed|Exited/);
      await page.close();
    });
  });

  describe('with --view-input', () => {
    let view: ViewServer;
    beforeAll(async () => {
      view = await startViewServer({ input: true });
    });
    afterAll(() => view?.close());

    it('types what the person types into the session, and the echo comes back', async () => {
      const page = await open(view);
      const agent = await view.connect('typing-agent');
      const session = await startSession(agent, { cmd: "PS1='ready$ ' exec bash --norc --noprofile -i", tty: true });
      const item = page.locator(`li.session[data-session-id="${session.sessionId}"]`);
      await item.waitFor({ timeout: 20_000 });
      expect(await page.locator('#mode').innerText()).toBe('typing on');
      await item.click();
      await vi.waitFor(async () => expect(await terminalText(page)).toContain('ready$'), SLOW);

      await page.locator('#terminal .xterm').click();
      await page.keyboard.type('echo typed-$((6 * 7))');
      await page.keyboard.press('Enter');
      await vi.waitFor(async () => expect(await terminalText(page)).toMatch(/^typed-42\s*$/m), SLOW);
      // The agent's next reply has it too: the page took nothing from it.
      const reply = await agent.callTool({
        name: 'write_stdin',
        arguments: { session_id: session.sessionId, chars: '', yield_time_ms: 500 },
      });
      expect((reply.structuredContent as { output: string }).output).toContain('typed-42');
      await page.close();
    });

    it('does not type the answers to terminal queries in the replayed output into the program', async () => {
      const agent = await view.connect('query-agent');
      // `\e[c` asks the terminal for its attributes: xterm.js answers `\e[?1;2c` when it replays this output.
      const session = await startSession(agent, {
        cmd: "printf 'asked\\033[c\\n'; PS1='ready$ ' exec bash --norc --noprofile -i",
        tty: true,
      });
      const page = await open(view);
      const item = page.locator(`li.session[data-session-id="${session.sessionId}"]`);
      await item.waitFor({ timeout: 20_000 });
      await item.click();
      await vi.waitFor(async () => expect(await terminalText(page)).toContain('ready$'), SLOW);
      // Waiting for something not to happen: time for a wrongly typed answer to reach bash.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const reply = await agent.callTool({
        name: 'write_stdin',
        arguments: { session_id: session.sessionId, chars: 'echo after-$((6 * 7))\n', yield_time_ms: 2000 },
      });
      const output = (reply.structuredContent as { output: string }).output;
      expect(output).toContain('after-42');
      expect(output).not.toContain('1;2c');
      await page.close();
    });
  });
});
