/** Terminal output helpers: aligned tables, human sizes, progress on a TTY only. */

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/**
 * An integer with thousands separators, as en-US writes it: `formatCount(1234567)` is
 * '1,234,567'. By hand: the first toLocaleString of a process loads ICU's number formatting,
 * tens of milliseconds a short command would spend on commas.
 */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function printTable(out: (s: string) => void, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n';
  out(line(header));
  out(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) out(line(r));
}

/**
 * A one-line progress indicator on stderr, shown only when stderr is a terminal; the text is a
 * function, so nothing is formatted when it is not shown.
 */
export function progress(label: string): { update(text: () => string): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let shown = false;
  return {
    update(text: () => string) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      process.stderr.write(`\r\x1b[K${label}: ${text()}`);
    },
    done() {
      if (tty && shown) process.stderr.write('\r\x1b[K');
    },
  };
}
