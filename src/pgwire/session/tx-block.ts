/**
 * The session's transaction state (https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-MULTI-STATEMENT):
 * idle, in a block (BEGIN … COMMIT), or in a failed block (25P02 until it ends); the block's
 * Transaction (./transaction.ts), and the implicit block of a multi-statement Query, which is a
 * Transaction while the status stays idle. BEGIN/COMMIT/ROLLBACK/SAVEPOINT/RELEASE answer with
 * PostgreSQL's tags, warnings and errors.
 *
 *   idle ──BEGIN──▶ in transaction ──error──▶ failed ──COMMIT/ROLLBACK──▶ idle
 *                        └──────────COMMIT/ROLLBACK────────────────────▲
 */
import type { Database } from '../../table/index.js';
import { featureNotSupported, SQLSTATE, unreachable } from '../../types/index.js';
import { TX_STATUS, type TxStatus } from '../codec/constants.js';
import * as be from '../codec/backend.js';
import { inFailedTransaction, onlyInTransactionBlock, writeInTransactionBlock } from '../codec/errors.js';
import type { CursorSet } from './cursor.js';
import type { ParamChange, SessionParams } from './params.js';
import type { Statement, TransactionVerb } from './statements.js';
import { Transaction } from './transaction.js';
import { NO_ROWS, type Outcome } from './outcome.js';

/**
 * Engine statements a transaction block runs: writes, COPY FROM and DDL (CREATE, DROP, ALTER
 * TABLE) are the transaction's until COMMIT, which commits them in one root of the store
 * (./transaction.ts). Other kinds are refused there with 0A000.
 */
const TX_STATEMENTS: ReadonlySet<string> = new Set([
  'SelectStmt',
  'ExplainStmt',
  'InsertStmt',
  'UpdateStmt',
  'DeleteStmt',
  'TruncateStmt',
  'CreateStmt',
  'DropStmt',
  'AlterTableStmt',
]);

/** Whether a statement of a multi-statement Query may run in its implicit block: not COPY FROM STDIN, nor what a block refuses. */
export function runsInImplicitBlock(stmt: Statement): boolean {
  if (stmt.kind === 'engine') return TX_STATEMENTS.has(stmt.node);
  return !(stmt.kind === 'copy' && stmt.direction === 'from');
}

export class TxBlock {
  status: TxStatus = TX_STATUS.idle;
  /** The block's transaction: a BEGIN's, or a Query's implicit one (`implicit`). */
  tx: Transaction | null = null;
  /** `tx` is the implicit transaction block of a multi-statement Query (Session.runStatements), not a BEGIN's. */
  implicit = false;

  /** `params`: the session's (past its startup); `report`: parameters a transaction's end changed back. */
  constructor(
    private readonly base: Database,
    private readonly cursors: CursorSet,
    private readonly params: () => SessionParams,
    private readonly report: (changes: readonly ParamChange[]) => void,
  ) {}

  /** The database statements read: in a transaction block, one pinned snapshot per table. */
  get db(): Database {
    return this.tx?.db ?? this.base;
  }

  /** Whether a block, BEGIN's or implicit, is open. */
  get open(): boolean {
    return this.status !== TX_STATUS.idle || this.implicit;
  }

  /** A statement failed: a block becomes failed (25P02 until its end), and its innermost level's SETs are undone. */
  fail(): void {
    if (this.status !== TX_STATUS.inTransaction) return;
    this.status = TX_STATUS.failed;
    this.report(this.params().abortInnermost());
  }

  /** 25P02 in a failed transaction block (but for what ends it), 0A000 for what a block refuses. */
  checkRunnable(stmt: Statement): void {
    if (
      this.status === TX_STATUS.failed &&
      !(stmt.kind === 'transaction' && (stmt.verb === 'commit' || stmt.verb === 'rollback' || stmt.verb === 'rollback-to'))
    )
      throw inFailedTransaction();
    if (this.status !== TX_STATUS.idle) {
      // Writes and DDL are the transaction's (./transaction.ts); what else commits on its own stays outside blocks.
      if (stmt.kind === 'engine' && !TX_STATEMENTS.has(stmt.node)) throw writeInTransactionBlock(statementName(stmt.node));
    }
  }

  /** An implicit transaction block: a Transaction while the status stays idle. */
  beginImplicit(): void {
    this.tx = new Transaction(this.base);
    this.implicit = true;
    this.params().beginTransaction();
  }

  /** The end of a Query's implicit block: its writes commit if no statement failed, else they are dropped; a failed COMMIT throws. */
  async endImplicit(failed: boolean): Promise<void> {
    if (!this.implicit) return;
    const tx = this.tx!;
    this.implicit = false;
    this.end(!failed);
    if (!failed) return this.commit(tx);
    await tx.abort();
    this.report(this.params().endTransaction(false));
  }

  /** A transaction's COMMIT: its SETs stay if it commits, and are undone if it fails. */
  private async commit(tx: Transaction): Promise<void> {
    try {
      await tx.commit();
    } catch (e) {
      this.report(this.params().endTransaction(false));
      throw e;
    }
    this.report(this.params().endTransaction(true));
  }

  /**
   * BEGIN/COMMIT/ROLLBACK/SAVEPOINT with PostgreSQL's tags, warnings and errors. A transaction
   * block pins one snapshot per table it reads and keeps its writes until COMMIT, which may
   * fail with 40001 (./transaction.ts); ROLLBACK [TO] undoes them.
   */
  async control(verb: TransactionVerb, tag: string, savepoint: string | undefined): Promise<Outcome> {
    const params = this.params();
    const messages: Buffer[] = [];
    const warn = (code: string, message: string) => {
      if (params.sendsNotice('WARNING')) messages.push(be.noticeResponse({ severity: 'WARNING', code, message }));
    };
    switch (verb) {
      case 'begin':
        if (this.status !== TX_STATUS.idle) warn(SQLSTATE.active_sql_transaction, 'there is already a transaction in progress');
        else {
          this.status = TX_STATUS.inTransaction;
          // In a Query's implicit block, what the string wrote before BEGIN joins the new block.
          if (this.implicit) this.implicit = false;
          else {
            this.tx = new Transaction(this.base);
            params.beginTransaction();
          }
        }
        return { ...NO_ROWS, tag, messages };
      case 'commit': {
        if (this.status === TX_STATUS.idle) warn(SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        const failed = this.status === TX_STATUS.failed;
        const tx = this.tx;
        this.implicit = false;
        this.end(!failed);
        // The writes become one snapshot per table; a failure (40001) ends the transaction too.
        if (tx === null) this.report(params.endTransaction(false));
        else if (failed) {
          await tx.abort();
          this.report(params.endTransaction(false));
        } else await this.commit(tx);
        return { ...NO_ROWS, tag: failed ? 'ROLLBACK' : 'COMMIT', messages };
      }
      case 'rollback':
        if (this.status === TX_STATUS.idle) warn(SQLSTATE.no_active_sql_transaction, 'there is no transaction in progress');
        await this.tx?.abort();
        this.implicit = false;
        this.end(false);
        this.report(params.endTransaction(false));
        return { ...NO_ROWS, tag: 'ROLLBACK', messages };
      case 'savepoint':
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('SAVEPOINT');
        await this.tx.savepoint(savepoint!);
        params.savepoint();
        return { ...NO_ROWS, tag: 'SAVEPOINT', messages };
      case 'release': {
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('RELEASE SAVEPOINT');
        const index = this.tx.savepointIndex(savepoint!);
        this.tx.release(savepoint!);
        this.report(params.releaseSavepoint(index));
        return { ...NO_ROWS, tag: 'RELEASE', messages };
      }
      case 'rollback-to': {
        if (this.tx === null || this.implicit) throw onlyInTransactionBlock('ROLLBACK TO SAVEPOINT');
        const index = this.tx.savepointIndex(savepoint!);
        const at = await this.tx.rollbackTo(savepoint!);
        this.report(params.rollbackToSavepoint(index));
        // Cursors declared after the savepoint go with it.
        this.cursors.rollbackTo(at);
        this.status = TX_STATUS.inTransaction;
        return { ...NO_ROWS, tag: 'ROLLBACK', messages };
      }
      case 'unsupported':
        throw featureNotSupported(tag);
      default:
        return unreachable(verb);
    }
  }

  /** The connection ended: a block's staged files are removed, nothing of it commits. */
  lost(): void {
    if (this.tx !== null) void this.tx.abort().catch(() => undefined);
  }

  /** The block ends: cursors close as COMMIT or ROLLBACK closes them; the status is idle again. */
  private end(committed: boolean): void {
    this.cursors.endTransaction(committed);
    this.status = TX_STATUS.idle;
    this.tx = null;
  }
}

/** 'InsertStmt' → 'INSERT', for messages. */
function statementName(node: string): string {
  return node
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}
