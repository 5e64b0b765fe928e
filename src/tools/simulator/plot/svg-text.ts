/**
 * Text in hand-written SVG: escaping, and wrapping by an estimate of the width (SVG text never wraps).
 * @module
 */

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

/** A generous estimate of the width of `text` in a sans-serif font of `size` px. */
export function textWidth(text: string, size: number): number {
  return text.length * size * 0.58;
}

/** Splits `text` at spaces into lines no wider than `width` px (a single long word stays whole). */
export function wrapText(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (line !== '' && textWidth(candidate, size) > width) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Numbers for axes: 1,200 → "1.2k", 30000 → "30k", 2.5 → "2.5". */
export function formatTick(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (abs >= 1000) return `${trim(n / 1000)}k`;
  return trim(n);
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(1)));
}

/** A short id derived from `text`, for `aria-labelledby` in a page with several plots. */
export function idFor(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return `plot-${hash.toString(36)}`;
}
