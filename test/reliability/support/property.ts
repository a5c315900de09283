import fc from 'fast-check';

function positiveInteger(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** Runs per property: a few thousand in CI, more with RELIABILITY_RUNS=100000 on a quiet machine. */
export const RUNS = positiveInteger(process.env.RELIABILITY_RUNS, 2000);

/** A share of RUNS for properties whose single run is expensive (a file parse, an engine round trip). */
export function runsOf(share: number): number {
  return Math.max(20, Math.round(RUNS * share));
}

/** A fresh seed per run unless RELIABILITY_SEED replays one. */
export function seedOfThisRun(): number {
  return positiveInteger(process.env.RELIABILITY_SEED, (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0);
}

/**
 * Checks a property and fails with the seed and the shrunk counterexample, and the command that replays it.
 * (fast-check's own report is kept whole: it names the path to the smallest failing input.)
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IRawProperty<Ts>,
  numRuns = RUNS,
): Promise<void> {
  const seed = seedOfThisRun();
  const details = await fc.check(property, { numRuns, seed });
  if (details.failed) {
    throw new Error(
      `property failed with fast-check seed ${seed}; replay with RELIABILITY_SEED=${seed}\n` +
        fc.defaultReportMessage(details) +
        `\nFirst failure: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    );
  }
}

/** CPU time one input may take before it counts as a hang (CPU, not wall time: a loaded machine must not fail it). */
export const HANG_CPU_MS = 1000;

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Runs `work` on one input and passes when it returns or throws one of the typed errors; a raw exception or more
 * than `hangCpuMs` (HANG_CPU_MS unless given) of CPU fails the property with what happened.
 */
export async function expectTypedOutcome<T>(
  work: () => T | Promise<T>,
  typed: readonly ErrorClass[],
  hangCpuMs = HANG_CPU_MS,
): Promise<{ value?: T; error?: Error }> {
  const start = process.cpuUsage();
  let outcome: { value?: T; error?: Error };
  try {
    outcome = { value: await work() };
  } catch (error) {
    if (!typed.some((kind) => error instanceof kind)) {
      const shown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(`raw exception instead of a typed error: ${shown}`);
    }
    outcome = { error: error as Error };
  }
  const cpuMs = cpuMsSince(start);
  if (cpuMs > hangCpuMs)
    throw new Error(`one input took ${Math.round(cpuMs)} ms of CPU (limit ${hangCpuMs})`);
  return outcome;
}
