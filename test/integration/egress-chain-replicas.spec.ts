import { openDatabase, StoreOrm } from '../../src/common/database';
import { registerEntities } from '../../src/common/database/entity-registry';
import { EgressDecisionSchema } from '../../src/modules/egress/egress-decision.entity';
import { EgressDecisionRepository } from '../../src/modules/egress/egress-decision.repository';
import { createTestDatabase, TestDatabase } from '../support/postgres';

registerEntities([EgressDecisionSchema]);

describe('the egress decision log written by two replicas on PostgreSQL', () => {
  let db: TestDatabase;
  let replicas: StoreOrm[];
  beforeAll(async () => {
    db = await createTestDatabase();
    replicas = await Promise.all([1, 2].map(() => openDatabase({ kind: 'postgresql', url: db.url })));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((orm) => orm.close(true)));
    await db.drop();
  });

  it('stays one verifiable chain when both append at once', async () => {
    const logs = replicas.map((orm) => new EgressDecisionRepository(orm.em));
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        logs[i % 2].append({
          decidedAt: new Date(Date.UTC(2026, 10, 26, 12, 0, i)).toISOString(),
          purpose: 'webhook',
          orgId: null,
          host: `replica-${i % 2}.example`,
          port: 443,
          address: null,
          allowed: false,
          reason: 'no rule',
        }),
      ),
    );
    expect(await logs[0].verifyChain()).toMatchObject({ verified: true, length: 30 });
  });
});
