import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { requireOperatorAdmin } from '../../common/auth/authorization';
import { Principal } from '../../common/auth/principal';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { invalidCursor } from '../../common/http/cursor-page';
import { EgressGuardService } from '../egress/egress-guard.service';
import { EgressLogService } from '../egress/egress-log.service';
import { LicensingService } from '../licensing/licensing.service';
import { TlsCertificates, toTlsSummary } from '../../common/tls';
import { ApplianceInfo, readApplianceInfo } from './appliance-info';
import { PrivacyReportRecord } from './privacy-report.entity';
import { PrivacyReportPage, PrivacyReportRepository, sequenceOf } from './privacy-report.repository';
import { loadOrCreateReportKey, ReportKey } from './report-key';
import { renderReportPage } from './report-page';
import { reportHash, signReport } from './report-signature';
import { describeReportStore, ReportStore } from './report-store';

export const REPORT_VERSION = 1;
const WINDOW_MS = 24 * 60 * 60 * 1000;
const TIMELINE_BUCKETS = 24;
// A predecessor still newer on the last attempt was stamped by a clock that stepped back: the report is kept rather
// than refusing every report until the clock catches up.
const COMPOSE_ATTEMPTS = 5;

@Injectable()
export class PrivacyService implements OnModuleInit {
  private key!: ReportKey;
  private readonly appliance: ApplianceInfo = readApplianceInfo();
  private store!: ReportStore;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly guard: EgressGuardService,
    private readonly egressLog: EgressLogService,
    private readonly history: PrivacyReportRepository,
    private readonly licensing: LicensingService,
    private readonly tls: TlsCertificates,
  ) {}

  onModuleInit(): void {
    this.key = loadOrCreateReportKey(this.config.keysDir);
    this.store = describeReportStore(this.config);
  }

  publicKey(principal: Principal): { publicKeyPem: string; kid: string } {
    assertOperatorAdmin(principal);
    return { publicKeyPem: this.key.publicKeyPem, kid: this.key.kid };
  }

  // The slot is taken inside the history's write transaction; a report overtaken meanwhile is composed again, so
  // generation times never go backwards.
  async serveFreshReport(principal: Principal): Promise<PrivacyReportRecord> {
    assertOperatorAdmin(principal);
    for (let attempt = 1; ; attempt++) {
      const content = await this.report(new Date());
      const mayRetry = attempt < COMPOSE_ATTEMPTS;
      const served = await this.history.append((slot) => {
        const overtaken =
          slot.previousGeneratedAt !== null && slot.previousGeneratedAt > content.generated_at;
        if (overtaken && mayRetry) return null;
        const report = {
          ...content,
          report_id: slot.id,
          sequence: slot.sequence,
          previous_report_hash: slot.previousReportHash,
        };
        return {
          generatedAt: content.generated_at,
          sha256: reportHash(report),
          document: signReport(report, this.key.privateKey, this.key.kid),
        };
      });
      if (served !== null) return served;
    }
  }

  page(report: PrivacyReportRecord): string {
    return renderReportPage({
      document: report.document,
      publicKeyPem: this.key.publicKeyPem,
      kid: this.key.kid,
    });
  }

  listReports(principal: Principal, limit: number, cursor?: string): Promise<PrivacyReportPage> {
    assertOperatorAdmin(principal);
    const before = cursor === undefined ? undefined : sequenceOf(cursor);
    if (cursor !== undefined && before === undefined) {
      throw invalidCursor();
    }
    return this.history.list(limit, before);
  }

  async findReport(principal: Principal, id: string): Promise<PrivacyReportRecord> {
    assertOperatorAdmin(principal);
    const report = sequenceOf(id) === undefined ? null : await this.history.findById(id);
    if (!report) throw new AppError('not_found', 'No kept privacy report has this id.');
    return report;
  }

  async report(now: Date): Promise<Record<string, unknown> & { generated_at: string }> {
    const end = now.toISOString();
    const start = new Date(now.getTime() - WINDOW_MS).toISOString();
    const policy = this.guard.policy;
    const destinations = await this.egressLog.destinations(start, end);
    const timeline = await this.egressLog.countOverTime(start, end, TIMELINE_BUCKETS);
    const nodes = await this.egressLog.countByNode(start, end);
    const chain = await this.egressLog.verifyChain();
    const findings = [...policy.publicReach()];
    for (const d of destinations) {
      const reached = this.egressLog.publicAddressesOf(d);
      if (reached.length > 0)
        findings.push(`${d.host}:${d.port} (${d.purpose}) reached public address ${reached.join(', ')}`);
    }
    const license = this.licensing.licenseSummary();
    const allowed = destinations.reduce((n, d) => n + d.allowed, 0);
    const denied = destinations.reduce((n, d) => n + d.denied, 0);
    return {
      report_version: REPORT_VERSION,
      generated_at: end,
      window: { start, end },
      appliance: {
        version: this.appliance.version,
        build: this.appliance.build,
        source_commit: this.appliance.sourceCommit,
        sbom_sha256: this.appliance.sbomSha256,
      },
      license: { edition: license.edition, status: license.status },
      store: this.store,
      tls: toTlsSummary(this.tls.status()),
      telemetry: { phone_home: false, update_check: false, crash_upload: false },
      policy: { mode: policy.mode, rules: policy.ruleTexts, sha256: policy.sha256 },
      egress_24h: {
        attempts: allowed + denied,
        allowed,
        denied,
        hourly: timeline.map((b) => ({ start: b.start, allowed: b.allowed, denied: b.denied })),
        nodes: nodes.map((n) => ({ node: n.node, allowed: n.allowed, denied: n.denied })),
        destinations: destinations.map((d) => ({
          host: d.host,
          port: d.port,
          purpose: d.purpose,
          allowed: d.allowed,
          denied: d.denied,
          first_seen: d.firstSeen,
          last_seen: d.lastSeen,
          addresses: d.addresses,
        })),
      },
      cloud_free: findings.length === 0,
      cloud_free_findings: findings,
      chain: {
        algorithm: 'sha256(prev_hash || canonical_json(row))',
        head_hash: chain.headHash,
        length: chain.length,
        verified: chain.verified,
        ...(chain.brokenAt !== undefined ? { broken_at: chain.brokenAt } : {}),
      },
    };
  }
}

function assertOperatorAdmin(principal: Principal): void {
  requireOperatorAdmin(principal, 'Only admins of the operator organization can see the privacy report.');
}
