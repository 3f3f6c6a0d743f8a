/**
 * A session's prepared statements and portals (the extended query protocol's named objects,
 * https://www.postgresql.org/docs/15/protocol-overview.html#PROTOCOL-QUERY-CONCEPTS), which
 * DEALLOCATE and DISCARD ALL also reach from SQL.
 */
import type { PgType, Value } from '../../types/index.js';
import type { PreparedQuery } from '../../engine/index.js';
import type { BindMessage } from '../codec/frontend.js';
import type { Statement } from './statements.js';
import type { Outcome } from './outcome.js';

export interface Prepared {
  readonly sql: string;
  readonly statement: Statement | null; // null: the empty query
  /** Parse's parameter types (null: infer). */
  readonly paramTypes: readonly (PgType | null)[];
  /** The engine's preparation of an engine statement, or of a DECLARE's query. */
  readonly engine: PreparedQuery | null;
}

export interface Portal {
  readonly prepared: Prepared;
  readonly bind: BindMessage;
  /** The parameters, decoded to values of their types. */
  readonly values: readonly Value[];
  outcome: Outcome | null;
  /** Rows already sent by Execute. */
  sent: number;
}

export class Portals {
  readonly statements = new Map<string, Prepared>();
  readonly portals = new Map<string, Portal>();

  /** DEALLOCATE name (false: no such statement), or DEALLOCATE ALL (null). */
  deallocate(name: string | null): boolean {
    if (name !== null) return this.statements.delete(name);
    for (const n of [...this.statements.keys()]) if (n !== '') this.statements.delete(n);
    return true;
  }

  /** DISCARD ALL: every named statement and portal. */
  discardAll(): void {
    this.deallocate(null);
    for (const n of [...this.portals.keys()]) if (n !== '') this.portals.delete(n);
  }
}

/** The parameter types a Bind decodes with: the engine's (given or inferred), else Parse's, unknown as text. */
export function paramTypesOf(p: Prepared): readonly PgType[] {
  return p.engine?.paramTypes ?? p.paramTypes.map((t) => t ?? { id: 'text' });
}
