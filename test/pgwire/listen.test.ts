/** `--listen` addresses, and loopback detection for trust authentication. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatListen, isLoopback, parseListen } from '../../src/pgwire/index.js';

test('parseListen accepts host:port, [v6]:port, host and :port', () => {
  assert.equal(parseListen('127.0.0.1:7432'), { host: '127.0.0.1', port: 7432 });
  assert.equal(parseListen('[::1]:5433'), { host: '::1', port: 5433 });
  assert.equal(parseListen('localhost'), { host: 'localhost', port: 7432 });
  assert.equal(parseListen(':0'), { host: '127.0.0.1', port: 0 });
});

test('parseListen refuses bad ports and shapes with a usage error', () => {
  for (const s of ['127.0.0.1:', '127.0.0.1:65536', 'a:b', '::1:5432', '[::1', 'host:-1']) {
    try {
      parseListen(s);
      assert.unreachable(s);
    } catch (e) {
      assert.is((e as { kind?: string }).kind, 'usage', s);
    }
  }
});

test('formatListen brackets IPv6', () => {
  assert.is(formatListen('::1', 5), '[::1]:5');
  assert.is(formatListen('127.0.0.1', 5), '127.0.0.1:5');
});

test('isLoopback', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'example.com', '']) assert.not.ok(isLoopback(h), h);
});

test.run();
