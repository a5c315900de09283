const EXACT_LIMIT = 4096;
const PRECISION = 14;
const REGISTERS = 1 << PRECISION;

const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(value: string): number {
  let h = 0x9747b28c ^ value.length;
  for (let i = 0; i < value.length; i++) {
    h = Math.imul(h ^ value.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return mix(h);
}

function hashNumber(value: number): number {
  float[0] = value;
  return mix(Math.imul(floatWords[0] ^ 0x27d4eb2d, 0x165667b1) ^ floatWords[1]);
}

/** A cell cut from a batch's text is a V8 view keeping the whole batch alive: a kept value gets its own copy. */
export function ownCopy(value: string): string {
  return (' ' + value).slice(1);
}

/** Exact up to a few thousand, then HyperLogLog: bounded memory whatever the source size. */
export class DistinctCounter {
  private exact: Set<number | string> | undefined = new Set();
  private registers: Uint8Array | undefined;

  get isEstimate(): boolean {
    return this.registers !== undefined;
  }

  add(value: number | string): void {
    if (this.exact) {
      const size = this.exact.size;
      this.exact.add(value);
      if (this.exact.size === size) return;
      if (typeof value === 'string') {
        this.exact.delete(value);
        this.exact.add(ownCopy(value));
      }
      if (this.exact.size > EXACT_LIMIT) {
        this.registers = new Uint8Array(REGISTERS);
        for (const v of this.exact) this.addHashed(v);
        this.exact = undefined;
      }
      return;
    }
    this.addHashed(value);
  }

  count(): number {
    if (this.exact) return this.exact.size;
    const registers = this.registers as Uint8Array;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < REGISTERS; i++) {
      sum += 2 ** -registers[i];
      if (registers[i] === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / REGISTERS);
    const raw = (alpha * REGISTERS * REGISTERS) / sum;
    if (raw <= 2.5 * REGISTERS && zeros > 0) return Math.round(REGISTERS * Math.log(REGISTERS / zeros));
    return Math.round(raw);
  }

  private addHashed(value: number | string): void {
    const hash = typeof value === 'number' ? hashNumber(value) : hashString(value);
    const index = hash >>> (32 - PRECISION);
    const rest = (hash << PRECISION) >>> 0;
    const rank = rest === 0 ? 32 - PRECISION + 1 : Math.clz32(rest) + 1;
    const registers = this.registers as Uint8Array;
    if (rank > registers[index]) registers[index] = rank;
  }
}
