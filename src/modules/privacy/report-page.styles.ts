/** The page's only style sheet, inline: screen layout, the chart's colours and the print rules (A4 and Letter). */
export const REPORT_PAGE_CSS = `
:root { --ok: #1b5e20; --bad: #b71c1c; --allowed: #2e7d32; --denied: #c62828; --muted: #555; --rule: #ccc; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #111; margin: 0 auto;
  max-width: 60rem; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; }
.meta { color: var(--muted); margin: 0 0 1rem; }
.verdict { border: 3px solid; border-radius: 6px; padding: .8rem 1rem; margin: 1rem 0; }
.verdict.ok { border-color: var(--ok); background: #e8f5e9; }
.verdict.bad { border-color: var(--bad); background: #ffebee; }
.verdict .headline { font-size: 1.3rem; font-weight: bold; margin: 0; }
.verdict.ok .headline { color: var(--ok); }
.verdict.bad .headline { color: var(--bad); }
.verdict ul { margin: .4rem 0 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
code, .hash, .path, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: .85em; }
.hash { overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 1px solid var(--rule); padding: .25rem .4rem; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
th { background: #f3f3f3; }
td.num, th.num { text-align: right; }
/* Headers, counts, ports and purposes are short words: wrapping them mid-word ("Allow|ed") reads as a typo. */
th { overflow-wrap: normal; }
td.num, td.word { overflow-wrap: normal; white-space: nowrap; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
svg#timeline-chart { width: 100%; height: auto; display: block; }
svg .allowed { fill: var(--allowed); }
svg .denied { fill: var(--denied); }
svg .grid { stroke: #e0e0e0; stroke-width: 1; }
svg .baseline { stroke: #333; stroke-width: 1; }
svg text { font: 11px "DejaVu Sans", Arial, sans-serif; fill: #333; }
.on { color: var(--bad); font-weight: bold; }
.off { color: var(--ok); font-weight: bold; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: .5rem; border: 1px solid var(--rule); }
section, figure { break-inside: avoid-page; }
figure { margin: 0; }
.signature { border: 2px solid #333; padding: .6rem 1rem; margin-top: 1.6rem; break-inside: avoid; }
.signature h2 { margin-top: 0; }
@page { margin: 16mm 14mm 18mm;
  @bottom-center { content: "Page " counter(page) " of " counter(pages); font: 9pt sans-serif; color: #555; }
  @bottom-left { content: "Decision Service privacy report"; font: 9pt sans-serif; color: #555; } }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  table { font-size: 8.5pt; }
  h2 { break-after: avoid; }
  .signature { break-before: auto; }
}
`;
