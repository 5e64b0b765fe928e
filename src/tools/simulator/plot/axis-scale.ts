/**
 * Axis scales with 3–5 labelled ticks: linear, and a symmetric log (log10(1 + y)) on which 0 and 1
 * stay apart, so that "no attempts" never looks like "one attempt".
 * @module
 */

/** A y (or x) scale: where a value lands in [0, 1], and the ticks to label. */
export interface AxisScale {
  /** 0 at the axis' start, 1 at its end. */
  readonly position: (value: number) => number;
  readonly ticks: readonly number[];
  /** A label for the axis title: ' (log scale)' or ''. */
  readonly note: string;
}

/** A step of 1, 2 or 5 × 10^k that splits `span` into about `count` parts. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const residual = raw / magnitude;
  return (residual > 5 ? 10 : residual > 2 ? 5 : residual > 1 ? 2 : 1) * magnitude;
}

/** Linear from 0 to a round value ≥ `max`, with 3–5 ticks. */
export function linearScale(max: number): AxisScale {
  const top = max > 0 ? max : 1;
  let step = niceStep(top, 4);
  let end = Math.ceil(top / step - 1e-9) * step;
  if (end / step > 4) {
    step *= 2;
    end = Math.ceil(top / step - 1e-9) * step;
  }
  const ticks: number[] = [];
  for (let i = 0; i * step <= end + 1e-9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { position: (v) => v / end, ticks, note: '' };
}

/**
 * Symmetric log: log10(1 + y), from 0 to a power of ten ≥ `max`; ticks at 0 and at powers of ten, at
 * most four of them and at least `minGap` px apart on an axis `pixels` long, so that 3–5 are labelled
 * and no two labels touch.
 */
export function symlogScale(max: number, pixels = 80, minGap = 14): AxisScale {
  const exponent = Math.max(1, Math.ceil(Math.log10(Math.max(1, max)) - 1e-9));
  const end = Math.log10(1 + 10 ** exponent);
  const position = (v: number): number => Math.log10(1 + Math.max(0, v)) / end;
  let every = Math.ceil((exponent + 1) / 4);
  while (every < exponent && (every * pixels) / exponent < minGap) every += 1;
  const powers: number[] = [];
  for (let e = exponent; e >= 0; e -= every) {
    if (position(10 ** e) * pixels >= minGap) powers.unshift(10 ** e);
  }
  return { position, ticks: [0, ...powers], note: ' (log scale)' };
}
