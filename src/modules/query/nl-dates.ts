/** Calendar arithmetic on UTC days, as `YYYY-MM-DD` text; a range is half-open [from, to). */

const DAY_MS = 86_400_000;

export function dayOf(time: Date): Date {
  return new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth(), time.getUTCDate()));
}

export function formatDay(day: Date): string {
  return day.toISOString().slice(0, 10);
}

export function parseDay(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return formatDay(day) === text ? day : undefined;
}

export function addDays(day: Date, days: number): Date {
  return new Date(day.getTime() + days * DAY_MS);
}

/** Adds calendar months, clamping to the last day of a shorter month (31 March - 1 month = 28/29 February). */
export function addMonths(day: Date, months: number): Date {
  const target = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(day.getUTCDate(), lastDay)),
  );
}

export type CalendarUnit = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** The calendar period (ISO weeks start on Monday) containing `day`. */
export function periodOf(day: Date, unit: CalendarUnit): { from: Date; to: Date } {
  const year = day.getUTCFullYear();
  const month = day.getUTCMonth();
  switch (unit) {
    case 'day':
      return { from: day, to: addDays(day, 1) };
    case 'week': {
      const from = addDays(day, -((day.getUTCDay() + 6) % 7));
      return { from, to: addDays(from, 7) };
    }
    case 'month':
      return { from: new Date(Date.UTC(year, month, 1)), to: new Date(Date.UTC(year, month + 1, 1)) };
    case 'quarter': {
      const first = month - (month % 3);
      return { from: new Date(Date.UTC(year, first, 1)), to: new Date(Date.UTC(year, first + 3, 1)) };
    }
    case 'year':
      return { from: new Date(Date.UTC(year, 0, 1)), to: new Date(Date.UTC(year + 1, 0, 1)) };
  }
}

/** The period before the one containing `day`. */
export function previousPeriod(day: Date, unit: CalendarUnit): { from: Date; to: Date } {
  const current = periodOf(day, unit);
  return periodOf(addDays(current.from, -1), unit);
}

/** The rolling window of the last `count` units ending with (and including) `day`. */
export function rollingWindow(day: Date, count: number, unit: CalendarUnit): { from: Date; to: Date } {
  const to = addDays(day, 1);
  switch (unit) {
    case 'day':
      return { from: addDays(to, -count), to };
    case 'week':
      return { from: addDays(to, -7 * count), to };
    case 'month':
      return { from: addMonths(to, -count), to };
    case 'quarter':
      return { from: addMonths(to, -3 * count), to };
    case 'year':
      return { from: addMonths(to, -12 * count), to };
  }
}
