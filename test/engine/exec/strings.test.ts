/** Text kernels (src/engine/exec/strings.ts): characters are code points; LIKE's escapes. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asciiLower, charLength, checkEscape, likeMatcher, position, substring, trim } from '../../../src/engine/exec/strings.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

test('LIKE: % and _ over code points, escapes, regex metacharacters taken literally', () => {
  assert.ok(likeMatcher('a_c', '\\', false).test('a😀c'));
  assert.ok(likeMatcher('%.*%', '\\', false).test('x.*y'));
  assert.not.ok(likeMatcher('%.*%', '\\', false).test('xy'));
  assert.ok(likeMatcher('a\\%', '\\', false).test('a%'));
  assert.not.ok(likeMatcher('a\\%', '\\', false).test('ab'));
  assert.ok(likeMatcher('a#_', '#', false).test('a_'));
  assert.ok(likeMatcher('a\\b', '', false).test('a\\b'));
  assert.ok(likeMatcher('%', '\\', false).test('line\nbreak'));
  assert.ok(likeMatcher('AX%', 'X', true).test('a%'));
  assert.is(code(() => likeMatcher('ab\\', '\\', false)), '22025');
  assert.is(code(() => checkEscape('ab')), '22025');
});

test('ILIKE, lower and upper change ASCII letters only (collation "C")', () => {
  assert.is(asciiLower('ÉcoLE'), 'École');
  assert.ok(likeMatcher('É%', '\\', true).test(asciiLower('École')));
  assert.not.ok(likeMatcher('é%', '\\', true).test(asciiLower('École')));
});

test('length, substring, position and trim count characters, not UTF-16 units', () => {
  assert.is(charLength('😀a'), 2);
  assert.is(substring('😀abc', 2, 2), 'ab');
  assert.is(substring('abc', 0, 2), 'a');
  assert.is(substring('abc', -5, 2), '');
  assert.is(substring('abc', 2, null), 'bc');
  assert.is(code(() => substring('abc', 1, -1)), '22011');
  assert.is(position('😀ab', 'b'), 3);
  assert.is(position('ab', ''), 1);
  assert.is(position('ab', 'z'), 0);
  assert.is(trim('xxaxx', 'x', true, false), 'axx');
  assert.is(trim('xxaxx', 'x', false, true), 'xxa');
  assert.is(trim('  a  ', ' ', true, true), 'a');
});

test.run();
