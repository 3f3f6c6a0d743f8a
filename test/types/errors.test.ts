/**
 * unreachable(): the default branch of the tree's exhaustive switches. A value the type system
 * rules out is a bug, so it is an internal error (XX000) that names the value.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PaxdError, unreachable } from '../../src/types/index.js';
import { formatText } from '../../src/types/text-io.js';
import type { PgType } from '../../src/types/type.js';

function thrown(f: () => unknown): PaxdError {
  try {
    f();
  } catch (e) {
    if (e instanceof PaxdError) return e;
    throw e;
  }
  throw new Error('expected a throw');
}

type Shape = { kind: 'circle'; r: number } | { kind: 'square'; side: number };

function area(s: Shape): number {
  switch (s.kind) {
    case 'circle':
      return Math.PI * s.r * s.r;
    case 'square':
      return s.side * s.side;
    default:
      return unreachable(s);
  }
}

test('unreachable is an internal error (XX000) naming the value', () => {
  const e = thrown(() => unreachable('int16' as never));
  assert.is(e.kind, 'internal');
  assert.is(e.code, 'XX000');
  assert.is(e.message, 'internal error: unexpected value "int16"');
  assert.is(thrown(() => unreachable(42 as never)).message, 'internal error: unexpected value 42');
  assert.is(thrown(() => unreachable(undefined as never)).message, 'internal error: unexpected value undefined');
});

test('an object is named by its JSON, bigints as digits, long ones cut', () => {
  assert.is(thrown(() => area({ kind: 'triangle', n: 3n } as unknown as Shape)).message, 'internal error: unexpected value {"kind":"triangle","n":"3"}');
  const long = thrown(() => unreachable({ kind: 'x', pad: 'y'.repeat(500) } as never)).message;
  assert.ok(long.endsWith('…') && long.length < 260, long);
  const cyclic: Record<string, unknown> = { kind: 'loop' };
  cyclic.self = cyclic;
  assert.is(thrown(() => unreachable(cyclic as never)).message, 'internal error: unexpected value [object Object]');
});

test('the tree uses it: a type id no switch knows is XX000, not a crash or a wrong answer', () => {
  const e = thrown(() => formatText({ id: 'money' } as unknown as PgType, 1));
  assert.is(e.code, 'XX000');
  assert.match(e.message, '"money"');
  assert.is(area({ kind: 'square', side: 3 }), 9);
});

test('it takes only never: a switch that misses a case does not compile', () => {
  const s = { kind: 'circle', r: 1 } as Shape;
  const missing = (x: Shape): number => {
    switch (x.kind) {
      case 'circle':
        return 1;
      default:
        // @ts-expect-error x is still { kind: 'square' } here
        return unreachable(x);
    }
  };
  assert.is(missing(s), 1);
});

test.run();
