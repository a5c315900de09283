/** Seams /v1/infrastructure reads from other modules; each is optional until its module provides it. */

export interface LicenseSummary {
  readonly edition: string;
  readonly status: string;
}

/** Implemented by the licensing service once it verifies licenses; until then the appliance is community. */
export interface LicenseSummarySource {
  licenseSummary(): LicenseSummary;
}

export function isLicenseSummarySource(value: unknown): value is LicenseSummarySource {
  return typeof (value as Partial<LicenseSummarySource> | null)?.licenseSummary === 'function';
}

export const UNLICENSED_COMMUNITY: LicenseSummary = Object.freeze({
  edition: 'community',
  status: 'unlicensed',
});

/** The runtime-library module provides this token (globally) to fill `runtime_library`. */
export interface RuntimeLibraryStatusSource {
  runtimeLibraryStatus(): Promise<Readonly<Record<string, unknown>> & { readonly status: string }>;
}

export const RUNTIME_LIBRARY_STATUS = Symbol('RUNTIME_LIBRARY_STATUS');
