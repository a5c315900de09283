import { loadConfig } from '../../src/common/config';
import { StoreOrm } from '../../src/common/database';
import { createLogger } from '../../src/common/logging';
import { PrivacyReportSchema } from '../../src/modules/privacy/privacy-report.entity';
import { PrivacyReportRepository, reportIdOf } from '../../src/modules/privacy/privacy-report.repository';
import { PrivacyReportRetention } from '../../src/modules/privacy/privacy-report-retention.service';
import { openRepositoryStore, RepositoryStore } from '../support/test-store';

let store: RepositoryStore;
let orm: StoreOrm;
let history: PrivacyReportRepository;

const DAY = 86_400_000;
const now = new Date('2026-11-26T12:00:00.000Z');

/** A stand-in document: the history stores whatever the service composed, keyed by its slot. */
const appendAt = async (generatedAt: Date) => {
  const row = await history.append((slot) => ({
    generatedAt: generatedAt.toISOString(),
    sha256: `${String(slot.sequence).padStart(2, '0')}${'a'.repeat(62)}`,
    document: JSON.stringify({ ...slot }),
  }));
  if (row === null) throw new Error('the stand-in composer never declines');
  return row;
};

beforeAll(async () => {
  store = await openRepositoryStore([PrivacyReportSchema], 'ds-privacy-history-');
  orm = store.orm;
  history = new PrivacyReportRepository(orm.em);
});

afterAll(async () => {
  await store.close();
});

describe('privacy report history', () => {
  it('links each report to the one before it, even when written concurrently', async () => {
    const written = await Promise.all(
      Array.from({ length: 6 }, () => appendAt(new Date(now.getTime() - 500 * DAY))),
    );
    const bySequence = [...written].sort((a, b) => a.sequence - b.sequence);
    expect(bySequence.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(bySequence[0].previousReportHash).toBeNull();
    for (let i = 1; i < bySequence.length; i++) {
      expect(bySequence[i].previousReportHash).toBe(bySequence[i - 1].sha256);
    }
    expect(bySequence[3].id).toBe('prr_000000000004');
  });

  it('refuses a second successor for the same report', async () => {
    const sql = orm.em.fork().getConnection();
    const [first] = await sql.execute<{ sha256: string }[]>(
      'select sha256 from privacy_reports where sequence = 1',
    );
    await expect(
      sql.execute(
        `insert into privacy_reports (sequence, id, generated_at, sha256, previous_report_hash, document)
         values (99, ?, ?, ?, ?, '{}')`,
        [reportIdOf(99), now.toISOString(), 'f'.repeat(64), first.sha256],
      ),
    ).rejects.toThrow(/unique/i);
  });

  it('pages newest first', async () => {
    const first = await history.list(4);
    expect(first.reports.map((r) => r.sequence)).toEqual([6, 5, 4, 3]);
    expect(first.nextCursor).toBe('prr_000000000003');
    const second = await history.list(4, 3);
    expect(second.reports.map((r) => r.sequence)).toEqual([2, 1]);
    expect(second.nextCursor).toBeNull();
  });

  it('prunes reports past the retention period but keeps the newest, so the next one still links', async () => {
    const config = loadConfig({
      SERVICE_DATA_DIR: store.dataDir,
      SERVICE_PRIVACY_REPORT_RETENTION_DAYS: '30',
    });
    const retention = new PrivacyReportRetention(history, config, createLogger('silent'));
    expect(await retention.prune(now)).toBe(5);
    expect((await history.list(10)).reports.map((r) => r.sequence)).toEqual([6]);

    const recent = await appendAt(new Date(now.getTime() - 10 * DAY));
    expect(recent.previousReportHash).toBe(`06${'a'.repeat(62)}`);
    await appendAt(now);
    expect(await retention.prune(now)).toBe(1);
    expect((await history.list(10)).reports.map((r) => r.sequence)).toEqual([8, 7]);
  });

  it('tells the composer when the predecessor was generated, and inserts nothing when it declines', async () => {
    const seen: (string | null)[] = [];
    const declined = await history.append((slot) => {
      seen.push(slot.previousGeneratedAt);
      return null;
    });
    expect(declined).toBeNull();
    expect(seen).toEqual([now.toISOString()]);
    expect((await history.list(10)).reports.map((r) => r.sequence)).toEqual([8, 7]);
  });
});
