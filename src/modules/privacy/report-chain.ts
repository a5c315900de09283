import { reportHash } from './report-signature';

export interface ChainedReport {
  readonly source: string;
  readonly report: Record<string, unknown>;
}

export interface ChainCheck {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly summary: string;
}

interface Link {
  readonly source: string;
  readonly id: string;
  readonly sequence: number;
  readonly generatedAt: string;
  readonly previousHash: string | null;
  readonly hash: string;
}

function linkOf({ source, report }: ChainedReport): Link | string {
  const { sequence, report_id: id, generated_at: generatedAt, previous_report_hash: previousHash } = report;
  if (typeof sequence !== 'number' || typeof id !== 'string' || previousHash === undefined) {
    return `${source}: the report carries no sequence or previous_report_hash (made before the history existed)`;
  }
  return {
    source,
    id,
    sequence,
    generatedAt: String(generatedAt),
    previousHash: previousHash as string | null,
    hash: reportHash(report),
  };
}

const describe = (l: Link): string => `report ${l.sequence} (${l.id}, ${l.generatedAt}, ${l.source})`;

export function checkReportChain(reports: readonly ChainedReport[]): ChainCheck {
  const problems: string[] = [];
  const links: Link[] = [];
  for (const entry of reports) {
    const link = linkOf(entry);
    if (typeof link === 'string') problems.push(link);
    else links.push(link);
  }
  links.sort((a, b) => a.sequence - b.sequence);
  for (let i = 1; i < links.length; i++) {
    const [before, after] = [links[i - 1], links[i]];
    if (after.sequence === before.sequence) {
      if (after.hash !== before.hash)
        problems.push(
          `two different reports claim number ${after.sequence}: ${before.source} and ${after.source}`,
        );
      continue;
    }
    if (after.sequence > before.sequence + 1) {
      const first = before.sequence + 1;
      const last = after.sequence - 1;
      const missing =
        first === last ? `report ${first} is missing` : `reports ${first} to ${last} are missing`;
      problems.push(
        `gap: ${missing} between ${describe(before)} and ${describe(after)}; the report before ${after.id} had signed-bytes SHA-256 ${after.previousHash ?? 'null'}`,
      );
      continue;
    }
    if (after.previousHash !== before.hash) {
      problems.push(
        `broken link: ${describe(after)} names previous_report_hash ${after.previousHash ?? 'null'}, but ${describe(before)} hashes to ${before.hash} (replaced or altered)`,
      );
    }
  }
  const first = links[0];
  const last = links[links.length - 1];
  const summary =
    links.length === 0
      ? 'no report of the history was given'
      : `${links.length} report(s), numbers ${first.sequence} to ${last.sequence}${
          first.previousHash === null ? ', starting with the first report of the appliance' : ''
        }`;
  return { ok: problems.length === 0, problems, summary };
}
