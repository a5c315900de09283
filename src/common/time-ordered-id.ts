import { randomUUID } from 'node:crypto';

/** The creation time in base 36, then 64 random bits: the id alone pages a list in creation order without ties. */
export function timeOrderedId(prefix: string, now: number): string {
  return `${prefix}_${now.toString(36).padStart(10, '0')}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export function isTimeOrderedId(prefix: string, value: string): boolean {
  return (
    value.length === prefix.length + 27 && new RegExp(`^${prefix}_[0-9a-z]{10}[0-9a-f]{16}$`).test(value)
  );
}
