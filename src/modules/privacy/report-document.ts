import type { TlsSummaryResponse } from '../../common/tls';
import type { ReportStore } from './report-store';

export interface ReportDocument {
  readonly report_version: number;
  readonly report_id?: string;
  readonly sequence?: number;
  readonly previous_report_hash?: string | null;
  readonly generated_at: string;
  readonly window: { readonly start: string; readonly end: string };
  readonly appliance: {
    readonly version: string;
    readonly build: string;
    /** Absent from reports made before builds were recorded. */
    readonly source_commit?: string | null;
    readonly sbom_sha256?: string | null;
  };
  readonly license: { readonly edition: string; readonly status: string };
  /** Absent from reports kept before the store was named. */
  readonly store?: ReportStore;
  /** Absent from reports kept before reports stated how the API is served. */
  readonly tls?: TlsSummaryResponse;
  readonly telemetry: Readonly<Record<string, boolean>>;
  readonly policy: { readonly mode: string; readonly rules: readonly string[]; readonly sha256: string };
  readonly egress_24h: {
    readonly attempts: number;
    readonly allowed: number;
    readonly denied: number;
    readonly hourly?: readonly HourCount[];
    /** Absent from reports kept before decisions recorded their node. */
    readonly nodes?: readonly NodeCount[];
    readonly destinations: readonly DestinationRow[];
  };
  readonly cloud_free: boolean;
  readonly cloud_free_findings: readonly string[];
  readonly chain: {
    readonly algorithm: string;
    readonly head_hash: string;
    readonly length: number;
    readonly verified: boolean;
    readonly broken_at?: number;
  };
  readonly signature: { readonly alg: string; readonly kid: string; readonly value: string };
}

export interface HourCount {
  readonly start: string;
  readonly allowed: number;
  readonly denied: number;
}

export interface NodeCount {
  readonly node: string | null;
  readonly allowed: number;
  readonly denied: number;
}

export interface DestinationRow {
  readonly host: string;
  readonly port: number;
  readonly purpose: string;
  readonly allowed: number;
  readonly denied: number;
  readonly first_seen: string;
  readonly last_seen: string;
  readonly addresses: readonly string[];
}
