import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** The region names the generated rows use; the benchmark filters on them. */
export const REGIONS = [
  'North',
  'South',
  'East',
  'West',
  'Central',
  'Nordics',
  'Iberia',
  'Benelux',
  'Alps',
  'Baltics',
];

/** xorshift32: a fixed generator, so every run benchmarks the same bytes. */
export function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

/**
 * Writes the benchmark CSV: `rows` rows of 8 columns (integer id, ISO date, two text dimensions, integer and decimal
 * measures, a boolean), deterministic for a given row count.
 */
export async function generateCsv(path: string, rows: number): Promise<void> {
  const next = random(42);
  const out = createWriteStream(path);
  out.write('order_id,order_date,region,product,units,unit_price,revenue,is_returned\n');
  const start = Date.UTC(2023, 0, 1);
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    const date = new Date(start + Math.floor(next() * 730) * 86_400_000).toISOString().slice(0, 10);
    const region = REGIONS[Math.floor(next() * REGIONS.length)];
    const product = `P-${String(Math.floor(next() * 200)).padStart(3, '0')}`;
    const units = 1 + Math.floor(next() * 50);
    const price = Math.round((2 + next() * 498) * 100) / 100;
    const revenue = Math.round(units * price * 100) / 100;
    chunk += `${i},${date},${region},${product},${units},${price},${revenue},${next() < 0.05}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

if (require.main === module) {
  const [path, rows] = process.argv.slice(2);
  generateCsv(path ?? '/tmp/bench-1m.csv', Number(rows ?? 1_000_000)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
