/** What the privacy report says about the license; the licensing module provides it once it lands. */
export interface LicenseSummary {
  readonly edition: string;
  readonly status: string;
}

export interface LicenseSummarySource {
  licenseSummary(): LicenseSummary;
}

export const LICENSE_SUMMARY = Symbol('LICENSE_SUMMARY');

/** Until license verification is wired in, every appliance reports the community edition, unlicensed. */
export class CommunityLicenseSummary implements LicenseSummarySource {
  licenseSummary(): LicenseSummary {
    return { edition: 'community', status: 'unlicensed' };
  }
}
