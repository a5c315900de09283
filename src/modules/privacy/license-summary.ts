/** What the privacy report says about the license; the licensing module provides it once it lands. */
export interface LicenseSummary {
  readonly edition: string;
  readonly status: string;
}

export interface LicenseSummarySource {
  licenseSummary(): LicenseSummary;
}

export const LICENSE_SUMMARY = Symbol('LICENSE_SUMMARY');
