export const REPORT_FORMATS = ['json', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

function qualityOf(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = { specificity: -1, q: 0 };
  for (const range of accept.split(',')) {
    const [name, ...params] = range.trim().toLowerCase().split(';');
    const specificity = name === type ? 2 : name === `${major}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/** `?format=` wins; otherwise HTML only when the client prefers text/html to JSON (a browser does, curl does not). */
export function chooseReportFormat(
  format: ReportFormat | undefined,
  accept: string | undefined,
): ReportFormat {
  if (format) return format;
  if (!accept) return 'json';
  return qualityOf(accept, 'text/html') > qualityOf(accept, 'application/json') ? 'html' : 'json';
}
