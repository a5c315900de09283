/** Markup that is already safe to place in a page; everything else is escaped where it is interpolated. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Template tag: every interpolated value is escaped unless it is SafeHtml (from another `markup` template). */
export function markup(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  return new SafeHtml(
    strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''),
  );
}

/** Trusted markup written in our own source (style sheets, constant SVG); never data. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
