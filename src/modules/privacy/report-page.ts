import { ReportDocument } from './report-document';
import { embedScript } from './report-embedding';
import { REPORT_PAGE_CSS } from './report-page.styles';
import { timelineChart } from './report-timeline-chart';
import { OPENSSL_RECIPE } from './report-verification-recipe';
import { SIGNING_CONTEXT } from './report-signature';
import { markup, SafeHtml, trusted } from './safe-html';

export interface ReportPageInput {
  readonly document: string;
  /** The appliance's current report key, printed so the page can be checked without this software. */
  readonly publicKeyPem: string;
  readonly kid: string;
}

/** Nothing may be fetched: the page is read years later, offline, and must not call anywhere when opened. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const TELEMETRY_LABELS: Record<string, string> = {
  phone_home: 'Phone home (usage statistics)',
  update_check: 'Update check',
  crash_upload: 'Crash report upload',
};

export function renderReportPage(input: ReportPageInput): string {
  const report = JSON.parse(input.document) as ReportDocument;
  const numbered = report.report_id
    ? markup` · report ${report.report_id} (number ${report.sequence ?? '?'})`
    : '';
  const page = markup`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Privacy report ${report.report_id ?? ''} — ${utc(report.generated_at)}</title>
<style>${trusted(REPORT_PAGE_CSS)}</style>
</head>
<body>
<header>
<h1>Privacy report</h1>
<p class="meta">Decision Service appliance · generated ${utc(report.generated_at)}${numbered} · covers ${utc(report.window.start)} to ${utc(report.window.end)}</p>
</header>
${verdict(report)}
${applianceSection(report)}
${storeSection(report)}
${policySection(report)}
${timelineSection(report)}
${destinationsSection(report)}
${telemetrySection(report)}
${chainSection(report)}
${verificationSection()}
${signatureSection(report, input)}
${trusted(embedScript(input.document))}
</body>
</html>
`;
  return page.markup;
}

function verdict(report: ReportDocument): SafeHtml {
  const { attempts, allowed, denied, destinations } = report.egress_24h;
  const activity = markup`<p>In the 24 hours covered, the appliance made ${plural(attempts, 'outbound connection attempt')} to ${plural(destinations.length, 'destination')}: ${allowed} allowed, ${denied} denied by its egress policy.</p>`;
  if (report.cloud_free) {
    return markup`<section id="verdict" class="verdict ok">
<p class="headline">Verdict: cloud-free</p>
<p>Nothing in the egress policy in force can reach public address space, and no allowed connection in the window went to a public address.</p>
${activity}
</section>`;
  }
  return markup`<section id="verdict" class="verdict bad">
<p class="headline">Verdict: NOT cloud-free</p>
<p>The appliance can reach, or did reach, public address space:</p>
<ul>${report.cloud_free_findings.map((f) => markup`<li>${f}</li>`)}</ul>
${activity}
</section>`;
}

function applianceSection(report: ReportDocument): SafeHtml {
  return markup`<section id="appliance">
<h2>Appliance and license</h2>
<dl class="facts">
<dt>Software version</dt><dd>${report.appliance.version}</dd>
<dt>Build</dt><dd>${report.appliance.build}</dd>
${buildProvenance(report)}
<dt>License edition</dt><dd>${report.license.edition}</dd>
<dt>License status</dt><dd>${report.license.status}</dd>
${tlsFacts(report)}
</dl>
</section>`;
}

function tlsFacts(report: ReportDocument): SafeHtml | '' {
  const { tls } = report;
  if (tls === undefined) return '';
  if (tls.mode === 'off') return markup`<dt>API transport</dt><dd>plain HTTP (SERVICE_TLS=off)</dd>`;
  return markup`<dt>API transport</dt><dd>HTTPS (SERVICE_TLS=${tls.mode}, certificate ${tls.origin ?? ''})</dd>
<dt>TLS certificate</dt><dd>${tls.subject ?? ''}, expires ${tls.expires_at ?? ''}</dd>
<dt>TLS fingerprint (SHA-256)</dt><dd class="path">${tls.fingerprint_sha256 ?? ''}</dd>`;
}

function buildProvenance({ appliance }: ReportDocument): SafeHtml | '' {
  if (appliance.source_commit === undefined) return '';
  return markup`<dt>Source commit</dt><dd><code>${appliance.source_commit ?? 'unknown'}</code></dd>
<dt>SBOM SHA-256</dt><dd><code>${appliance.sbom_sha256 ?? 'none (not a package)'}</code></dd>`;
}

function nodesLine(report: ReportDocument): SafeHtml | '' {
  const nodes = report.egress_24h.nodes;
  if (nodes === undefined) return '';
  const names = nodes.map(
    (n) =>
      markup`<li>${n.node ?? 'not recorded (decisions from before nodes were)'}: ${n.allowed} allowed, ${n.denied} denied</li>`,
  );
  return nodes.length === 0
    ? markup`<p id="nodes">No node recorded an egress decision in the window.</p>`
    : markup`<p>Nodes whose egress decisions this report counts:</p><ul id="nodes">${names}</ul>`;
}

function storeSection(report: ReportDocument): SafeHtml {
  const { store } = report;
  if (store === undefined) {
    return markup`<section id="store">
<h2>Where the appliance keeps its state</h2>
<p>This report was made before reports named the state store.</p>
${nodesLine(report)}
</section>`;
  }
  const where =
    store.kind === 'sqlite'
      ? markup`<p>SQLite, this appliance's file.</p>`
      : markup`<p>PostgreSQL server <code>${store.location}</code>, shared by every replica of the appliance; dataset files and signing keys on storage the replicas share.</p>`;
  return markup`<section id="store">
<h2>Where the appliance keeps its state</h2>
${where}
<dl class="facts">
<dt>Store</dt><dd>${store.kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL host:port/database'}</dd>
<dt>Location</dt><dd class="path">${store.location}</dd>
<dt>Dataset files</dt><dd class="path">${store.datasets_dir}</dd>
<dt>Signing keys</dt><dd class="path">${store.keys_dir}</dd>
<dt>Composed on node</dt><dd>${store.composed_on}</dd>
</dl>
${nodesLine(report)}
<p>The store is the operator's own configuration, outside the egress policy: reaching it is not an egress
decision and is in none of the egress counts of this report.${store.kind === 'postgresql' ? ' The report covers every replica: the decision log it counts is the one they share.' : ''}</p>
</section>`;
}

function policySection(report: ReportDocument): SafeHtml {
  const { mode, rules, sha256 } = report.policy;
  const summary =
    mode === 'deny_all'
      ? 'Deny all: no rule allows any outbound connection.'
      : `Allow list: only what the ${plural(rules.length, 'rule')} below name may be reached; everything else is refused.`;
  const list =
    rules.length > 0
      ? markup`<ul class="rules">${rules.map((r) => markup`<li><code>${r}</code></li>`)}</ul>`
      : '';
  return markup`<section id="policy">
<h2>Egress policy in force</h2>
<p>${summary}</p>
${list}
<dl class="facts"><dt>Policy SHA-256</dt><dd class="hash">${sha256}</dd></dl>
</section>`;
}

function timelineSection(report: ReportDocument): SafeHtml {
  const hours = report.egress_24h.hourly ?? [];
  const body =
    hours.length > 0
      ? markup`<figure>${timelineChart(hours)}<figcaption>Outbound connection attempts per hour: allowed (green) and denied (red).</figcaption></figure>`
      : markup`<p>This report has no hourly counts.</p>`;
  return markup`<section id="timeline">
<h2>24-hour timeline</h2>
${body}
</section>`;
}

function destinationRow(d: ReportDocument['egress_24h']['destinations'][number]): SafeHtml {
  const addresses = d.addresses.length > 0 ? d.addresses.join(', ') : '—';
  return markup`<tr><td>${d.host}</td><td class="num">${d.port}</td><td class="word">${d.purpose}</td><td class="num">${d.allowed}</td><td class="num">${d.denied}</td><td>${utc(d.first_seen)}</td><td>${utc(d.last_seen)}</td><td>${addresses}</td></tr>
`;
}

function destinationsSection(report: ReportDocument): SafeHtml {
  const rows = report.egress_24h.destinations;
  const body =
    rows.length === 0
      ? markup`<p>No outbound connection was attempted in the window.</p>`
      : markup`<table id="destinations">
<colgroup><col style="width:22%"><col style="width:7%"><col style="width:11%"><col style="width:8%"><col style="width:8%"><col style="width:15%"><col style="width:15%"><col style="width:14%"></colgroup>
<thead><tr><th>Host</th><th class="num">Port</th><th>Purpose</th><th class="num">Allowed</th><th class="num">Denied</th><th>First seen</th><th>Last seen</th><th>Addresses reached</th></tr></thead>
<tbody>
${rows.map(destinationRow)}</tbody>
</table>`;
  return markup`<section id="destinations-section">
<h2>Destinations</h2>
${body}
</section>`;
}

function telemetrySection(report: ReportDocument): SafeHtml {
  const switches = Object.entries(report.telemetry).map(
    ([name, on]) =>
      markup`<dt>${TELEMETRY_LABELS[name] ?? name}</dt><dd class="${on ? 'on' : 'off'}">${on ? 'on' : 'off'}</dd>`,
  );
  return markup`<section id="telemetry">
<h2>Telemetry switches</h2>
<dl class="facts">${switches}</dl>
<p>The appliance software contains no code that sends usage statistics, checks for updates or uploads crash reports.</p>
</section>`;
}

function chainSection(report: ReportDocument): SafeHtml {
  const { chain } = report;
  const state = chain.verified
    ? 'Intact: every recorded egress decision links to the one before it, recomputed from the first at report time.'
    : markup`<strong>Broken</strong> at decision ${chain.broken_at ?? '?'}: the log was altered after it was written.`;
  const previous =
    report.previous_report_hash === undefined
      ? 'not recorded'
      : report.previous_report_hash === null
        ? 'none (this is the first report)'
        : `SHA-256 of its signed bytes: ${report.previous_report_hash}`;
  return markup`<section id="chain">
<h2>Decision log</h2>
<p>${state}</p>
<dl class="facts">
<dt>Decisions recorded</dt><dd>${chain.length}</dd>
<dt>Head hash</dt><dd class="hash">${chain.head_hash}</dd>
<dt>Link rule</dt><dd><code>${chain.algorithm}</code></dd>
<dt>Previous report</dt><dd class="hash">${previous}</dd>
</dl>
</section>`;
}

function verificationSection(): SafeHtml {
  return markup`<section id="verification">
<h2>How to verify this page</h2>
<p>The exact report the appliance signed is embedded in this file, in the element
<code>&lt;script type="application/json" id="signed-report"&gt;</code>, with every <code>&lt;</code> written
<code>\\u003c</code>. What this page shows is drawn from it.</p>
<p>The signature is Ed25519 (RFC 8032) over the UTF-8 bytes of the line <code>${SIGNING_CONTEXT.trimEnd()}</code>
followed by one line feed, then the report's JSON without its <code>signature</code> member: keys sorted at every
depth, no whitespace (the served JSON is already in this form, so removing the member is enough). The key id
(<code>kid</code>) is the first 16 hex characters of SHA-256 over the public key's DER SubjectPublicKeyInfo.
With openssl alone, on any machine:</p>
<pre id="openssl-recipe">${OPENSSL_RECIPE}</pre>
</section>`;
}

function signatureSection(report: ReportDocument, input: ReportPageInput): SafeHtml {
  const intro =
    report.signature.kid === input.kid
      ? markup`The appliance's report public key (kid ${input.kid}):`
      : markup`<strong>This report was signed by key ${report.signature.kid}; the appliance's current key is ${input.kid}.</strong> Verify it with the key you recorded for ${report.signature.kid}. Current key:`;
  return markup`<section id="signature" class="signature">
<h2>Signature</h2>
<dl class="facts">
<dt>Algorithm</dt><dd>${report.signature.alg}</dd>
<dt>Signed by key</dt><dd class="hash">${report.signature.kid}</dd>
<dt>Signature</dt><dd class="hash">${report.signature.value}</dd>
</dl>
<p>${intro}</p>
<pre id="public-key">${input.publicKeyPem.trim()}</pre>
</section>`;
}
