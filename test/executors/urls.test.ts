import { describe, expect, it } from 'vitest';
import { executorNameProblem, parseExecutorUrl } from '../../src/executors/urls.js';

describe('parseExecutorUrl', () => {
  it.each([
    ['local', { kind: 'local' }],
    ['ws://10.0.0.2:8700', { kind: 'exec-server', url: 'ws://10.0.0.2:8700' }],
    ['ws://10.0.0.2:8700/', { kind: 'exec-server', url: 'ws://10.0.0.2:8700' }],
    ['wss://box.example:443', { kind: 'exec-server', url: 'wss://box.example' }],
    ['ws://[::1]:8700', { kind: 'exec-server', url: 'ws://[::1]:8700' }],
    [
      'ws://10.0.0.2:8700?token-file=/home/me/t',
      { kind: 'exec-server', url: 'ws://10.0.0.2:8700', tokenFile: '/home/me/t' },
    ],
    ['docker://web-1', { kind: 'docker', container: 'web-1' }],
    [
      'docker://web-1?socket=/run/podman/podman.sock',
      { kind: 'docker', container: 'web-1', socketPath: '/run/podman/podman.sock' },
    ],
    ['docker-image://debian:bookworm', { kind: 'docker-image', image: 'debian:bookworm' }],
    [
      'docker-image://ghcr.io/org/app:1.2?socket=/x.sock',
      { kind: 'docker-image', image: 'ghcr.io/org/app:1.2', socketPath: '/x.sock' },
    ],
    [
      'docker-image://localhost/unified-exec-test:bookworm',
      { kind: 'docker-image', image: 'localhost/unified-exec-test:bookworm' },
    ],
  ])('%s', (text, parsed) => {
    expect(parseExecutorUrl(text)).toEqual(parsed);
  });

  it.each([
    ['remote', /is not a URL; use local, ws:\/\/HOST:PORT, docker:\/\/CONTAINER or docker-image:\/\/IMAGE/],
    ['http://10.0.0.2:8700', /unknown scheme/],
    ['ftp://x', /unknown scheme/],
    ['ws://10.0.0.2:8700?token=abc', /unknown parameter token; ws:\/\/ takes token-file=PATH/],
    ['docker://web-1?token-file=/t', /unknown parameter token-file/],
    ['docker://', /names no container/],
    ['docker-image://?socket=/x', /names no image/],
    ['ws://:8700', /not a URL|names no host/],
  ])('refuses %s, saying why', (text, says) => {
    expect(() => parseExecutorUrl(text)).toThrow(says);
  });
});

describe('executorNameProblem', () => {
  it('takes short names of letters, digits, dots, dashes and underscores', () => {
    for (const name of ['local', 'gpu-1', 'box_2', 'a.b', '9lives']) expect(executorNameProblem(name)).toBeUndefined();
    for (const name of ['', '-x', 'a b', 'é', 'x'.repeat(65)])
      expect(executorNameProblem(name)).toMatch(/executor name/);
  });
});
