// The live view's page: the exec sessions of every MCP client (refreshed every 2 s) and the selected one's
// terminal (xterm.js), fed from the server's event stream. Plain browser JS, served as it is: no build step.

const LIST_REFRESH_MS = 2000;
const RECONNECT_MS = 1000;
/** sessionStorage: this tab only, gone when it closes. */
const TOKEN_KEY = 'unified-exec-view-token';
const API = '/view/api';

const { Terminal } = globalThis; // xterm.js's browser build, loaded before this script
const $ = (id) => document.getElementById(id);

const STATE_TEXT = { running: 'running', waiting_for_input: 'waiting for input', exited: 'exited' };
const THEME = {
  background: '#0a0d12',
  foreground: '#d7dce4',
  cursor: '#d7dce4',
  cursorAccent: '#0a0d12',
  selectionBackground: '#264f78',
  black: '#484f58',
  red: '#ff7b72',
  green: '#3fb950',
  yellow: '#d29922',
  blue: '#58a6ff',
  magenta: '#bc8cff',
  cyan: '#39c5cf',
  white: '#b1bac4',
  brightBlack: '#6e7681',
  brightRed: '#ffa198',
  brightGreen: '#56d364',
  brightYellow: '#e3b341',
  brightBlue: '#79c0ff',
  brightMagenta: '#d2a8ff',
  brightCyan: '#56d4dd',
  brightWhite: '#f0f6fc',
};

/**
 * The token comes in the address's fragment (`/view#token=...`): a browser never sends the fragment to a server,
 * and cannot add an Authorization header when it opens a page, so the page's files are served without the token
 * and this script sends it with every API call. It is kept for this tab and taken out of the address bar (and so
 * out of the history and bookmarks).
 */
function takeTokenFromAddress() {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!match) return;
  let token = match[1];
  try {
    token = decodeURIComponent(token);
  } catch {
    // not percent-encoded: taken as written
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', location.pathname + location.search);
}

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** fetch() with the token; a non-2xx answer throws an HttpError with the server's message. */
async function api(path, init = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers = { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(`${API}${path}`, { ...init, headers, cache: 'no-store' });
  if (res.ok) return res;
  let message = `${res.status} ${res.statusText}`;
  try {
    const text = await res.text();
    message = JSON.parse(text).error?.message ?? text;
  } catch {
    // the status line it is
  }
  throw new HttpError(res.status, message);
}

const sessionPath = (s, action) => `/sessions/${s.client_id}/${s.session_id}${action ? `/${action}` : ''}`;
const keyOf = (s) => `${s.client_id}/${s.session_id}`;

function formatAge(seconds) {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${String(seconds % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

function stateText(s) {
  return s.state === 'exited' && s.exit_code !== null ? `exited (${s.exit_code})` : STATE_TEXT[s.state];
}

const clientText = (s) => s.client_name ?? `client ${s.client_id.slice(0, 8)}`;

/** What the page knows: the latest listing, the selected session and its viewer. */
const page = { sessions: [], input: false, selected: undefined, viewer: undefined, loggedOut: false };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderList() {
  const list = $('sessions');
  list.replaceChildren(
    ...page.sessions.map((s) => {
      const item = element('li', 'session');
      item.dataset.clientId = s.client_id;
      item.dataset.sessionId = String(s.session_id);
      item.setAttribute('role', 'option');
      item.setAttribute('aria-selected', String(page.selected !== undefined && keyOf(s) === keyOf(page.selected)));
      item.title = [
        `session ${s.session_id}${s.pid === null ? '' : `, pid ${s.pid}`}, ${s.tty ? 'tty' : 'pipes'}, ${s.location}`,
        `client ${s.client_name ?? ''} ${s.client_id}`,
        `started ${new Date(s.started_at).toLocaleString()}`,
      ].join('\n');
      const command = element('div', 'command');
      command.append(element('i', `dot ${s.state}`), element('span', '', s.command));
      item.append(command, element('div', 'meta', `${stateText(s)} · ${clientText(s)} · ${formatAge(s.age_s)}`));
      item.addEventListener('click', () => select(s));
      return item;
    }),
  );
  $('empty').hidden = page.sessions.length > 0;
  const clients = new Set(page.sessions.map((s) => s.client_id)).size;
  const count = page.sessions.length;
  $('summary').textContent =
    `${count} session${count === 1 ? '' : 's'}` + (count ? ` · ${clients} client${clients === 1 ? '' : 's'}` : '');
  const mode = $('mode');
  mode.hidden = false;
  mode.className = page.input ? 'mode typing' : 'mode';
  mode.textContent = page.input ? 'typing on' : 'read-only';
  mode.title = page.input
    ? 'serve --view-input: what you type in a terminal goes to its session'
    : 'Start serve with --view-input to type into sessions from here';
  renderToolbar();
}

function renderToolbar() {
  const selected = page.selected;
  $('toolbar').hidden = selected === undefined;
  if (selected === undefined) return;
  const current = page.sessions.find((s) => keyOf(s) === keyOf(selected));
  const gone = current === undefined;
  const shown = current ?? selected;
  $('title').textContent = shown.command;
  $('title').title = shown.command;
  const state = $('state');
  state.className = `state ${gone ? 'exited' : shown.state}`;
  state.textContent = gone ? 'closed' : stateText(shown);
  $('close').disabled = gone;
}

async function refreshList() {
  if (page.loggedOut) return;
  try {
    const listing = await (await api('/sessions')).json();
    page.input = listing.input;
    page.sessions = listing.sessions;
    renderList();
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) return showLogin();
    $('summary').textContent = `cannot reach the server: ${error.message}`;
  }
}

async function pollList() {
  await refreshList();
  setTimeout(pollList, LIST_REFRESH_MS);
}

function select(session) {
  if (page.selected !== undefined && keyOf(page.selected) === keyOf(session)) return;
  page.viewer?.dispose();
  page.selected = session;
  $('placeholder').hidden = true;
  page.viewer = new Viewer(session, page.input);
  renderList();
}

/** `event: NAME\ndata: JSON` blocks of a text/event-stream; comment lines (keep-alives) are skipped. */
function parseEvent(block) {
  let event = 'message';
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data += line.slice(6);
  }
  return { event, data: data === '' ? undefined : JSON.parse(data) };
}

/** One session's terminal, fed from its stream; reconnects (starting over from its recent output) until it ends. */
class Viewer {
  constructor(session, input) {
    this.session = session;
    this.input = input;
    this.abort = new AbortController();
    this.term = undefined;
    this.replaying = false;
    this.ended = false;
    this.typing = '';
    this.sending = false;
    void this.run();
  }

  dispose() {
    this.abort.abort();
    this.term?.dispose();
  }

  async run() {
    while (!this.abort.signal.aborted && !this.ended) {
      try {
        await this.stream();
      } catch (error) {
        if (this.abort.signal.aborted) return;
        if (error instanceof HttpError && error.status === 401) return showLogin();
        if (error instanceof HttpError && error.status === 404) return this.status('The session has ended.');
        this.status(`The stream broke (${error.message}); reconnecting.`);
      }
      if (!this.ended) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  async stream() {
    const res = await api(sessionPath(this.session, 'stream'), { signal: this.abort.signal });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let at;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        this.onEvent(parseEvent(buffer.slice(0, at)));
        buffer = buffer.slice(at + 2);
      }
    }
  }

  onEvent({ event, data }) {
    switch (event) {
      case 'start':
        this.open(data);
        // While old output is replayed, what xterm.js answers to the terminal queries in it (device attributes,
        // cursor position) must not reach the program as if typed now.
        this.replaying = true;
        this.term.write(data.recent, () => (this.replaying = false));
        this.status(this.modeText(data));
        break;
      case 'output':
        this.term?.write(data.text);
        break;
      case 'end':
        this.ended = true;
        this.status(data.exit_code === null ? 'The session has ended.' : `Exited with code ${data.exit_code}.`);
        void refreshList();
        break;
      case 'behind':
        // The stream ends; the next one starts over from the recent output.
        break;
    }
  }

  /** A terminal of the session's own size: its program drew for that size, so a fitted one would garble it. */
  open({ tty, cols, rows }) {
    this.term?.dispose();
    this.term = new Terminal({
      cols,
      rows,
      // A pipe session's output has bare \n line ends.
      convertEol: !tty,
      disableStdin: !(this.input && tty),
      scrollback: 5000,
      fontFamily: "'DejaVu Sans Mono', 'Cascadia Mono', Menlo, Consolas, monospace",
      fontSize: 14,
      cursorInactiveStyle: 'outline',
      theme: THEME,
    });
    this.term.open($('terminal'));
    if (!this.input || !tty) return;
    this.term.onData((chars) => {
      if (!this.replaying) void this.type(chars);
    });
  }

  /** Which session this is, and whether typing reaches it. */
  modeText({ tty, cols, rows }) {
    const s = this.session;
    const what = [`session ${s.session_id}`, ...(s.pid === null ? [] : [`pid ${s.pid}`]), clientText(s)];
    what.push(tty ? `${cols}×${rows} tty` : 'pipes');
    if (!tty) what.push('read-only (its stdin is closed)');
    else what.push(this.input ? 'click the terminal and type: keys go to the session' : 'read-only');
    return what.join(' · ');
  }

  /** Keys in the order typed: one request at a time, whatever piled up meanwhile in the next. */
  async type(chars) {
    this.typing += chars;
    if (this.sending) return;
    this.sending = true;
    while (this.typing !== '' && !this.abort.signal.aborted) {
      const body = JSON.stringify({ chars: this.typing });
      this.typing = '';
      try {
        await api(sessionPath(this.session, 'input'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      } catch (error) {
        this.status(`Typing failed: ${error.message}`);
        this.typing = '';
      }
    }
    this.sending = false;
  }

  status(text) {
    if (!this.abort.signal.aborted) $('status').textContent = text;
  }
}

async function closeSelected() {
  const session = page.selected;
  if (session === undefined) return;
  $('close').disabled = true;
  try {
    const { exit_code: code } = await (await api(sessionPath(session), { method: 'DELETE' })).json();
    $('status').textContent = `Closed${code === null ? '' : ` (exit code ${code})`}; its processes are ended.`;
  } catch (error) {
    $('status').textContent = `Could not close it: ${error.message}`;
  }
  await refreshList();
}

function showLogin(message) {
  page.loggedOut = true;
  $('login').hidden = false;
  $('login-error').textContent =
    message ?? (sessionStorage.getItem(TOKEN_KEY) ? 'The server did not take the token it was given.' : '');
  $('token').focus();
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
  $('token').value = '';
  $('login').hidden = true;
  page.loggedOut = false;
  void refreshList();
});
$('close').addEventListener('click', () => void closeSelected());

takeTokenFromAddress();
void pollList();
