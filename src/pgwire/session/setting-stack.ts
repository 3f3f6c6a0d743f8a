/**
 * How SET, SET LOCAL and RESET inside transactions are undone: PostgreSQL's GUC stack
 * (src/backend/utils/misc/guc.c push_old_value and AtEOXact_GUC; docs: SET, "The effects of SET
 * or SET SESSION are undone if the transaction is rolled back … SET LOCAL lasts until the end
 * of the current transaction"). A transaction is nest level 1, each savepoint one more; a
 * parameter changed at a level keeps one entry there with the value it had before (`prior`)
 * and, after SET then SET LOCAL, the SET's value (`masked`) that COMMIT returns to.
 *
 *   BEGIN; SET a = 1; SET LOCAL a = 2; COMMIT;   // a = 1 (the SET's value, masked by the LOCAL)
 *   BEGIN; SET a = 1; ROLLBACK;                  // a as before BEGIN
 *   BEGIN; SAVEPOINT s; SET a = 1; ROLLBACK TO s; // a as before the savepoint
 *
 * Outside a transaction level nothing is stacked: a SET just changes the value.
 */

/** The entry's state: guc.h GucStackState (but GUC_SAVE, which only function SET clauses use). */
type EntryState = 'set' | 'local' | 'set-local';

interface Entry {
  level: number;
  state: EntryState;
  /** The value before this level changed it. */
  prior: string;
  /** set-local: the value a SET at this level gave, which the LOCAL masks until COMMIT. */
  masked: string | null;
}

export class SettingStack {
  /** GUCNestLevel: 0 outside a transaction, 1 in one, +1 per open savepoint. */
  private level = 0;
  private readonly stacks = new Map<string, Entry[]>();

  /** `values`: the parameters' current values by name, changed in place at the end of a level. */
  constructor(private readonly values: Map<string, string>) {}

  /** Whether a transaction level is open (SET LOCAL has an effect). */
  get inTransaction(): boolean {
    return this.level > 0;
  }

  /** Called before `name` changes by SET (`local` false) or SET LOCAL: push_old_value. */
  willChange(name: string, local: boolean): void {
    if (this.level === 0) return;
    let stack = this.stacks.get(name);
    const top = stack?.at(-1);
    if (top !== undefined && top.level >= this.level) {
      if (!local) {
        top.state = 'set';
        top.masked = null;
      } else if (top.state === 'set') {
        top.masked = this.values.get(name)!;
        top.state = 'set-local';
      }
      return;
    }
    if (stack === undefined) this.stacks.set(name, (stack = []));
    stack.push({ level: this.level, state: local ? 'local' : 'set', prior: this.values.get(name)!, masked: null });
  }

  /** BEGIN (or a Query's implicit block): nest level 1. */
  begin(): void {
    this.level = 1;
  }

  /** SAVEPOINT: one level more. */
  savepoint(): void {
    this.level++;
  }

  /**
   * The end of levels `level` and above: COMMIT (`commit`, level 1), ROLLBACK (level 1),
   * RELEASE (commit of the savepoint's level) or ROLLBACK TO (abort of it; the savepoint stays,
   * so the caller opens its level again). Returns the names whose value changed.
   */
  end(commit: boolean, level: number): string[] {
    const before = new Map<string, string>();
    for (const name of this.stacks.keys()) before.set(name, this.values.get(name)!);
    // One level at a time, innermost first, as each subtransaction ends in PostgreSQL.
    for (let l = this.level; l >= level; l--) this.endLevel(commit, l);
    this.level = level - 1;
    return [...before].filter(([name, v]) => this.values.get(name) !== v).map(([name]) => name);
  }

  /** AtEOXact_GUC(commit, l) for every parameter with entries at level l. */
  private endLevel(commit: boolean, l: number): void {
    for (const [name, stack] of this.stacks) {
      const top = stack.at(-1);
      if (top === undefined || top.level < l) continue;
      const prev = stack.length > 1 ? stack[stack.length - 2]! : null;
      let restore: string | null = null;
      if (!commit) restore = top.prior;
      else if (top.level === 1) {
        // Transaction commit: a SET stays, a LOCAL goes, a SET masked by a LOCAL comes back.
        if (top.state === 'set-local') restore = top.masked;
        else if (top.state === 'local') restore = top.prior;
      } else if (prev === null || prev.level < top.level - 1) {
        // Nothing stacked at the level below: the entry moves down a level.
        top.level--;
        continue;
      } else if (top.state === 'set') {
        // Merge into the level below (a RELEASE): a SET makes it a SET.
        prev.state = 'set';
        prev.masked = null;
      } else if (top.state === 'local') {
        // A LOCAL over the level below's SET masks it.
        if (prev.state === 'set') {
          prev.masked = top.prior;
          prev.state = 'set-local';
        }
      } else {
        prev.masked = top.masked;
        prev.state = 'set-local';
      }
      if (restore !== null) this.values.set(name, restore);
      stack.pop();
      if (stack.length === 0) this.stacks.delete(name);
    }
  }

  /** The nest level now (a savepoint's level is what `end` takes to undo or release it). */
  get depth(): number {
    return this.level;
  }
}
