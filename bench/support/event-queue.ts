/** A binary min-heap of timed events for the discrete-event models; ties run in insertion order. */
export class EventQueue {
  readonly #times: number[] = [];
  readonly #seqs: number[] = [];
  readonly #events: (() => void)[] = [];
  #seq = 0;

  get size(): number {
    return this.#events.length;
  }

  push(time: number, event: () => void): void {
    const t = this.#times;
    const s = this.#seqs;
    const e = this.#events;
    let i = e.length;
    t.push(time);
    s.push(this.#seq++);
    e.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Removes the earliest event and returns its time and action, or undefined when empty. */
  pop(): { time: number; event: () => void } | undefined {
    const e = this.#events;
    if (e.length === 0) return undefined;
    const time = this.#times[0]!;
    const event = e[0]!;
    const last = e.length - 1;
    this.#swap(0, last);
    this.#times.pop();
    this.#seqs.pop();
    e.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < e.length && this.#less(l, m)) m = l;
      if (r < e.length && this.#less(r, m)) m = r;
      if (m === i) break;
      this.#swap(i, m);
      i = m;
    }
    return { time, event };
  }

  #less(a: number, b: number): boolean {
    const ta = this.#times[a]!;
    const tb = this.#times[b]!;
    return ta < tb || (ta === tb && this.#seqs[a]! < this.#seqs[b]!);
  }

  #swap(a: number, b: number): void {
    const t = this.#times;
    const s = this.#seqs;
    const e = this.#events;
    [t[a], t[b]] = [t[b]!, t[a]!];
    [s[a], s[b]] = [s[b]!, s[a]!];
    [e[a], e[b]] = [e[b]!, e[a]!];
  }
}
