import { markup, SafeHtml } from './safe-html';
import { HourCount } from './report-document';

const WIDTH = 720;
const HEIGHT = 230;
const LEFT = 44;
const RIGHT = 8;
const TOP = 26;
const BOTTOM = 36;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const LABEL_EVERY_HOURS = 3;
const HOUR_MS = 3_600_000;

const hhmm = (iso: string): string => iso.slice(11, 16);
const fixed = (n: number): string => n.toFixed(1);

function bar(
  kind: 'allowed' | 'denied',
  x: number,
  width: number,
  top: number,
  bottom: number,
): SafeHtml | '' {
  if (bottom - top <= 0) return '';
  return markup`<rect class="${kind}" x="${fixed(x)}" y="${fixed(top)}" width="${fixed(width)}" height="${fixed(bottom - top)}"/>`;
}

export function timelineChart(hours: readonly HourCount[]): SafeHtml {
  const peak = Math.max(1, ...hours.map((h) => h.allowed + h.denied));
  const slot = PLOT_W / Math.max(1, hours.length);
  const barWidth = Math.max(1, slot * 0.72);
  const y = (count: number): number => TOP + PLOT_H - (count / peak) * PLOT_H;
  const bars = hours.map((hour, i) => {
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    const end = new Date(Date.parse(hour.start) + HOUR_MS).toISOString();
    const tip = `${hhmm(hour.start)}–${hhmm(end)} UTC: ${hour.allowed} allowed, ${hour.denied} denied`;
    const total = hour.allowed + hour.denied;
    return markup`<g class="hour"><title>${tip}</title>${bar('allowed', x, barWidth, y(hour.allowed), y(0))}${bar(
      'denied',
      x,
      barWidth,
      y(total),
      y(hour.allowed),
    )}</g>`;
  });
  const ticks = [0, Math.round(peak / 2), peak].filter((v, i, all) => all.indexOf(v) === i);
  const grid = ticks.map(
    (v) =>
      markup`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/><text class="axis" x="${LEFT - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${v}</text>`,
  );
  const labels = hours.map((hour, i) =>
    i % LABEL_EVERY_HOURS === 0
      ? markup`<text class="axis" x="${fixed(LEFT + i * slot)}" y="${HEIGHT - BOTTOM + 16}">${hhmm(hour.start)}</text>`
      : '',
  );
  const allowed = hours.reduce((n, h) => n + h.allowed, 0);
  const denied = hours.reduce((n, h) => n + h.denied, 0);
  return markup`<svg id="timeline-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="timeline-title timeline-desc">
<title id="timeline-title">Outbound connection attempts per hour (UTC)</title>
<desc id="timeline-desc">${allowed} allowed and ${denied} denied attempts in the 24 hours of the report, hour by hour.</desc>
<g class="legend"><rect class="allowed" x="${LEFT}" y="6" width="10" height="10"/><text x="${LEFT + 14}" y="15">Allowed</text><rect class="denied" x="${LEFT + 80}" y="6" width="10" height="10"/><text x="${LEFT + 94}" y="15">Denied</text><text x="${WIDTH - RIGHT}" y="15" text-anchor="end">hour starting (UTC)</text></g>
${grid}${bars}${labels}
<line class="baseline" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(0)}" y2="${y(0)}"/>
</svg>`;
}
