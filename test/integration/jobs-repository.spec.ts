import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { StoreOrm } from '../../src/common/database';
import { Job, JobSchema } from '../../src/modules/jobs/job.entity';
import { JobsRepository } from '../../src/modules/jobs/jobs.repository';
import { openRepositoryStore, RepositoryStore } from '../support/test-store';

let store: RepositoryStore;
let orm: StoreOrm;
let jobs: JobsRepository;

const T0 = new Date('2026-11-27T10:00:00.123Z');
const REQUEST = { runs: 1000, seed: '42', scenario: { note: "quote ' and ? and \u0000" } };

const rowOf = async (id: string): Promise<Record<string, unknown>> => {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<Record<string, unknown>[]>('select * from jobs where id = ?', [id]);
  expect(rows).toHaveLength(1);
  return rows[0];
};

beforeAll(async () => {
  store = await openRepositoryStore([JobSchema], 'ds-jobs-repo-');
  orm = store.orm;
  jobs = new JobsRepository(orm.em);
});

afterAll(async () => {
  await store.close();
});

describe('JobsRepository.create (a prepared insert on SQLite, the same SQL executed on PostgreSQL)', () => {
  it('stores a job exactly as the ORM stored one, and reads back what it answered', async () => {
    const job = await jobs.create('org_a', REQUEST, 'https://example.test/cb', T0, 'op_exact');
    // Another organization, as the operation id is unique per organization.
    const reference: Job = { ...job, id: 'job_orm_reference', orgId: 'org_reference' };
    await orm.em.fork().insert(JobSchema, reference);

    const { id: _prepared, org_id: _a, ...prepared } = await rowOf(job.id);
    const { id: _orm, org_id: _b, ...byOrm } = await rowOf(reference.id);
    expect(prepared).toEqual(byOrm);
    expect(await jobs.findForOrg('org_a', job.id)).toEqual(job);
    expect(job).toMatchObject({
      status: 'queued',
      attempts: 0,
      createdAt: T0,
      request: JSON.stringify(REQUEST),
      idempotencyId: 'op_exact',
    });
    expect(await jobs.findForOrg('org_b', job.id)).toBeNull();
  });

  it('refuses a second job for one Idempotency-Key operation with the ORM exception; the first answers the replay', async () => {
    const first = await jobs.create('org_a', REQUEST, undefined, T0, 'op_once');
    await expect(jobs.create('org_a', { other: true }, undefined, T0, 'op_once')).rejects.toBeInstanceOf(
      UniqueConstraintViolationException,
    );
    expect(await jobs.findByIdempotency('org_a', 'op_once')).toEqual(first);
    const page = await jobs.listForOrg('org_a', 50);
    expect(page.jobs.filter((job) => job.idempotencyId === 'op_once')).toEqual([first]);
    // The operation id is unique per organization, not across them.
    const elsewhere = await jobs.create('org_b', REQUEST, undefined, T0, 'op_once');
    expect(await jobs.findByIdempotency('org_b', 'op_once')).toEqual(elsewhere);
  });
});
