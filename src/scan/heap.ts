/**
 * The bounded heap behind every `ORDER BY … LIMIT n`: it keeps the `capacity` best items
 * offered so far under a total order `cmp` (negative when a sorts before b), with the worst
 * kept item at the root, so that a full heap rejects a worse item in one comparison and
 * admits a better one in O(log capacity). Used by the library's top-N (./topn.ts, which also
 * reads `worst()` to push a running bound into the scan) and by the engine's sort
 * (../engine/exec/sort.ts).
 *
 * `cmp` must be total — break ties by input or storage position — or the kept set among
 * equal items is arbitrary.
 *
 *   const h = new BoundedHeap<number>(2, (a, b) => a - b);
 *   for (const x of [5, 1, 4, 2]) h.offer(x);
 *   h.sorted()   // [1, 2]
 */
export class BoundedHeap<T> {
  private readonly items: T[] = [];

  constructor(
    readonly capacity: number,
    private readonly cmp: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.items.length;
  }

  get full(): boolean {
    return this.items.length >= this.capacity;
  }

  /** The worst item kept (the one a better item displaces once full); undefined when empty. */
  worst(): T | undefined {
    return this.items[0];
  }

  /** Keeps `x` if the heap has room or `x` sorts before the worst item; true when kept. */
  offer(x: T): boolean {
    if (this.items.length < this.capacity) {
      this.items.push(x);
      this.up(this.items.length - 1);
      return true;
    }
    if (this.capacity === 0 || this.cmp(x, this.items[0]!) >= 0) return false;
    this.replaceWorst(x);
    return true;
  }

  /**
   * Puts `x` in place of the worst item of a full heap. The caller has checked that `x` sorts
   * before it (top-N compares a first key on typed arrays before building the item).
   */
  replaceWorst(x: T): void {
    this.items[0] = x;
    this.down(0);
  }

  /** The kept items, best first. The heap is left empty. */
  sorted(): T[] {
    const out = this.items.splice(0, this.items.length);
    return out.sort(this.cmp);
  }

  private up(i: number): void {
    const h = this.items;
    const x = h[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(x, h[p]!) <= 0) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = x;
  }

  private down(i: number): void {
    const h = this.items;
    const n = h.length;
    const x = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const w = r < n && this.cmp(h[r]!, h[l]!) > 0 ? r : l;
      if (this.cmp(h[w]!, x) <= 0) break;
      h[i] = h[w]!;
      i = w;
    }
    h[i] = x;
  }
}
