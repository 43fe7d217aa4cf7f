// The Docker executor's pure parts, with plain data: messages, environment, working directory, the kill argv.
import { describe, expect, it } from 'vitest';
import { killTreeArgv } from '../../src/executors/container-kill-script.js';
import { containerCwd, containerEnv } from '../../src/executors/docker-container.js';
import {
  containerCreateFailure,
  engineReason,
  execCreateFailure,
  runtimeStartFailure,
} from '../../src/executors/docker-messages.js';
import { SESSION_ENV } from '../../src/spawn/env.js';

const ENGINE = 'the Docker engine at unix:///run/docker.sock';
const http = (statusCode: number, message: string) =>
  Object.assign(new Error(`(HTTP code ${statusCode}) unexpected - ${message} `), { statusCode, json: { message } });

describe('docker messages', () => {
  it("takes the engine's own sentence out of dockerode's error", () => {
    expect(engineReason(http(404, 'no such container'))).toBe('no such container');
    expect(engineReason(new Error('(HTTP code 500) server error - it broke '))).toBe('it broke');
  });

  it('says what to check when an exec cannot be made', () => {
    expect(execCreateFailure(http(404, 'no such container'), 'web-1', ENGINE)).toBe(
      `container web-1 was not found on ${ENGINE}: check its name or id (docker ps)`,
    );
    expect(execCreateFailure(http(409, 'container abc is not running'), 'web-1', ENGINE)).toBe(
      'container web-1 is not running (container abc is not running): start it (docker start web-1)',
    );
    expect(execCreateFailure(http(500, 'container state improper'), 'web-1', ENGINE)).toMatch(/is not running/);
    expect(execCreateFailure(Object.assign(new Error('connect ENOENT'), { code: 'ENOENT' }), 'web-1', ENGINE)).toBe(
      `${ENGINE} could not be reached (ENOENT): check that it runs and the socket path`,
    );
  });

  it('says what to check when a container cannot be made from an image', () => {
    expect(containerCreateFailure(http(404, 'No such image: debian:nope'), 'debian:nope', ENGINE)).toBe(
      `image debian:nope is not on ${ENGINE}: check its name, or pull it first (docker pull debian:nope)`,
    );
  });

  it("recognises the runtime's report that it could not start the command, from Podman and from Docker", () => {
    const podmanCwd =
      'Error: runc: exec failed: unable to start container process: chdir to cwd ("/nope") set in config.json failed: no such file or directory: OCI runtime attempted to invoke a command that was not found\n';
    const dockerCwd =
      'OCI runtime exec failed: exec failed: unable to start container process: chdir to cwd ("/nope") set in config.json failed: no such file or directory: unknown\r\n';
    for (const output of [podmanCwd, dockerCwd]) {
      expect(runtimeStartFailure(output, 'web-1')).toBe(
        'the working directory /nope does not exist in container web-1 (or is not a directory): pass an existing `workdir`',
      );
    }
    expect(
      runtimeStartFailure(
        'Error: runc: exec failed: unable to start container process: exec: "bash": executable file not found in $PATH: OCI runtime attempted to invoke a command that was not found\n',
        'web-1',
      ),
    ).toBe('bash was not found in container web-1: check that the image has it (a shell such as /bin/sh)');
    expect(runtimeStartFailure('sh: 1: nope: not found\n', 'web-1')).toBeUndefined();
  });
});

describe('containerEnv', () => {
  it('sends the session variables, the policy over them, and the tag; nothing else', () => {
    const env = containerEnv({ inherit: 'all', set: { TERM: 'xterm', CHOSEN: '1' } }, 'tag.1');
    expect(Object.fromEntries(env.map((e) => e.split(/=(.*)/s)))).toEqual({
      ...SESSION_ENV,
      TERM: 'xterm',
      CHOSEN: '1',
      UNIFIED_EXEC_TAG: 'tag.1',
    });
    expect(containerEnv(undefined, 't')).toHaveLength(Object.keys(SESSION_ENV).length + 1);
  });
});

describe('containerCwd', () => {
  const base = (dir: string) => () => Promise.resolve(dir);
  it("leaves '' to the container, keeps absolute paths, resolves relative ones against the container's", async () => {
    expect(await containerCwd('', base('/srv'))).toBeUndefined();
    expect(await containerCwd('/tmp/./x/', base('/srv'))).toBe('/tmp/x');
    expect(await containerCwd('app', base('/srv'))).toBe('/srv/app');
    expect(await containerCwd('app', base(''))).toBe('/app');
  });
});

describe('killTreeArgv', () => {
  it('runs the script with sh, the tag and the first signals as arguments', () => {
    const argv = killTreeArgv('abc.1', ['HUP', 'TERM']);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv.slice(3)).toEqual(['unified-exec-kill', 'abc.1', 'HUP', 'TERM']);
    expect(argv[2]).toContain('UNIFIED_EXEC_TAG=$tag');
  });
});
