import { describeStore, storeLocationOf } from '../../src/common/database';

describe('describeStore: where the state lives, without credentials', () => {
  it('names the SQLite file', () => {
    expect(describeStore(storeLocationOf({ databaseFile: '/var/lib/decision/service.db' }))).toBe(
      'sqlite:/var/lib/decision/service.db',
    );
  });

  it('names the PostgreSQL server and database, never the user or password', () => {
    const described = describeStore(
      storeLocationOf({
        databaseUrl: 'postgres://decision:s3cret-p%40ss@10.0.0.20:5432/decision?sslmode=require',
        databaseFile: '/unused',
      }),
    );
    expect(described).toBe('postgresql://10.0.0.20:5432/decision');
    expect(described).not.toContain('s3cret');
  });
});
