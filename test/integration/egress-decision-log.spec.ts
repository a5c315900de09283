import { rmSync } from 'node:fs';
import { GuardHarness, startGuard } from '../support/egress-fixtures';
import { makeTempDir } from '../support/test-app';
import { decisionHash, GENESIS_HASH } from '../../src/modules/egress/egress-decision.repository';

describe('egress decision log', () => {
  let dir: string;
  let h: GuardHarness;
  beforeAll(async () => {
    dir = makeTempDir('ds-egress-log-');
    h = await startGuard(dir, ['127.0.0.1:9']);
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sql = (query: string, params: unknown[] = []): Promise<unknown> =>
    h.orm.em.fork().getConnection().execute(query, params);

  it('chains each decision to the one before it', async () => {
    const context = { purpose: 'connector' as const, orgId: 'org_a' };
    await h.guard.connect('127.0.0.1', 9, context);
    await expect(h.guard.connect('127.0.0.1', 10, context)).rejects.toThrow(/loopback_address/);
    await Promise.all(
      [1, 2, 3, 4, 5].map(() => h.guard.checkDestination('10.0.0.1', 5432, context).catch(() => undefined)),
    );
    const rows = (await sql('select * from egress_decisions order by seq')) as {
      seq: number;
      prev_hash: string;
      hash: string;
      allowed: number;
      host: string;
      address: string | null;
    }[];
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(rows[0].prev_hash).toBe(GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
    expect(rows[0]).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1' });
    expect(Boolean(rows[0].allowed)).toBe(true);
    expect(Boolean(rows[1].allowed)).toBe(false);
    const chain = await h.decisions.verifyChain();
    expect(chain).toEqual({ headHash: rows[6].hash, length: 7, verified: true });
  });

  it('refuses updates and deletes', async () => {
    await expect(sql('update egress_decisions set allowed = 1 where seq = 2')).rejects.toThrow(/append-only/);
    await expect(sql('delete from egress_decisions where seq = 7')).rejects.toThrow(/append-only/);
  });

  it('detects a forged row', async () => {
    const last = (
      (await sql('select * from egress_decisions order by seq desc limit 1')) as { hash: string }[]
    )[0];
    await sql(
      `insert into egress_decisions (seq, decided_at, purpose, org_id, host, port, address, allowed, reason, prev_hash, hash)
       values (8, '2026-01-01T00:00:00.000Z', 'webhook', null, 'evil.example', 443, '203.0.113.9', 1, 'rule_matched: x', ?, ?)`,
      [
        last.hash,
        decisionHash(GENESIS_HASH, {
          seq: 8,
          decidedAt: 'x',
          purpose: 'webhook',
          orgId: null,
          host: 'h',
          port: 1,
          address: null,
          allowed: true,
          reason: 'r',
        }),
      ],
    );
    const chain = await h.decisions.verifyChain();
    expect(chain.verified).toBe(false);
    expect(chain.brokenAt).toBe(8);
  });
});
