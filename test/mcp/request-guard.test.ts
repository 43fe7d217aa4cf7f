import { describe, expect, it } from 'vitest';
import { buildGuardPolicy, checkRequest, isLoopbackHost } from '../../src/mcp/request-guard.js';

describe('isLoopbackHost', () => {
  it('knows the loopback names and addresses', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '192.168.1.1',
      'example.com',
      '128.0.0.1',
      'localhost.example.com',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('checkRequest', () => {
  const loopback = buildGuardPolicy({ host: '127.0.0.1', port: 8765 });

  it('accepts the bound address and the loopback names, with the bound port', () => {
    for (const host of ['127.0.0.1:8765', 'localhost:8765', '[::1]:8765', 'LOCALHOST:8765']) {
      expect(checkRequest({ host }, loopback), host).toEqual({ ok: true });
    }
  });

  it('rejects a foreign Host, a wrong port and a missing Host with 403', () => {
    for (const host of ['attacker.example:8765', 'attacker.example', '127.0.0.1:9999', '127.0.0.1', undefined]) {
      expect(checkRequest({ host }, loopback), String(host)).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('accepts loopback origins and rejects any other, including "null"', () => {
    const host = '127.0.0.1:8765';
    for (const origin of ['http://localhost:8765', 'http://127.0.0.1:3000', 'https://[::1]']) {
      expect(checkRequest({ host, origin }, loopback), origin).toEqual({ ok: true });
    }
    for (const origin of [
      'http://attacker.example',
      'null',
      'file://',
      'http://localhost.attacker.example',
      'chrome-extension://abc',
    ]) {
      expect(checkRequest({ host, origin }, loopback), origin).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('with a token, wants the exact bearer on every request', () => {
    const policy = buildGuardPolicy({ host: '127.0.0.1', port: 8765, token: 'abc' });
    const host = '127.0.0.1:8765';
    expect(checkRequest({ host, authorization: 'Bearer abc' }, policy)).toEqual({ ok: true });
    expect(checkRequest({ host, authorization: 'bearer abc' }, policy)).toEqual({ ok: true });
    for (const authorization of [undefined, '', 'Bearer', 'Bearer abcd', 'Bearer ab', 'Basic abc', 'abc']) {
      expect(checkRequest({ host, authorization }, policy), String(authorization)).toMatchObject({
        ok: false,
        status: 401,
      });
    }
    // Rebinding is refused before the token is even looked at.
    expect(checkRequest({ host: 'attacker.example:8765', authorization: 'Bearer abc' }, policy)).toMatchObject({
      status: 403,
    });
  });

  it('bound to every interface, accepts loopback names, the given interface addresses and allowed names', () => {
    const policy = buildGuardPolicy({
      host: '0.0.0.0',
      port: 8765,
      token: 't',
      interfaceAddresses: ['10.1.2.3', 'fe80::1'],
      extraHosts: ['devbox.internal', 'proxy.internal:443'],
    });
    const ok = (host: string) => checkRequest({ host, authorization: 'Bearer t' }, policy).ok;
    expect(
      ['localhost:8765', '10.1.2.3:8765', '[fe80::1]:8765', 'devbox.internal:8765', 'proxy.internal:443'].every(ok),
    ).toBe(true);
    expect(['attacker.example:8765', '10.1.2.4:8765', 'devbox.internal:9999'].some(ok)).toBe(false);
  });
});
