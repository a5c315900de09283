import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { Clock, ClockStepWatch } from '../../common/clock';
import { retryWhileStoreUnavailable, WorkLeases } from '../../common/database';
import { isStoreUnavailable, toAppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { MetricsService } from '../../common/metrics/metrics.service';
import { Trigger } from './trigger.entity';
import { parseCondition } from './trigger-definition';
import { nextSlotAfter, planSlot, Reading, transition } from './trigger-evaluation';
import { ComputedFire, TriggerFiring } from './trigger-firing';
import { TriggerReader } from './trigger-reader';
import { EvaluationRecord, TriggerRepository } from './trigger.repository';

const TICK_MS = 1000;
/** Evaluations in flight (and leases held) at once: most are one shared read and one state write. */
const MAX_CONCURRENT = 64;
/** Fire simulations at once: the engine pool's workers also serve /v1/simulate and jobs. */
const MAX_SIMULATIONS = 8;
/** A finished evaluation claims again this much later, so the room freed meanwhile is claimed in one batch. */
const CLAIM_LINGER_MS = 20;

/**
 * Evaluates due triggers on their schedule. Due triggers are claimed in batches under leases in the table (not a
 * timer in this process), renewed while their evaluations run as jobs' and deliveries' are: a slow simulation keeps
 * its claim, and the triggers a dead replica held are claimed again (by any replica) once its leases run out. A
 * restart resumes every trigger from its persisted state.
 */
@Injectable()
export class TriggerEvaluator implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The evaluations in flight, by trigger id. */
  private readonly running = new Map<string, Promise<void>>();
  private simulating = 0;
  private readonly waitingToSimulate: (() => void)[] = [];
  private readonly loop = new BackgroundLoop(
    () => this.fill(),
    TICK_MS,
    (error) => this.logger.error({ event: 'trigger_claim_failed', err: error }, 'could not claim triggers'),
  );
  private readonly renewal: BackgroundLoop;
  private readonly clockStep: ClockStepWatch;
  private readonly evaluations;
  private readonly fires;
  private readonly skips;
  private readonly lateness;

  constructor(
    private readonly triggers: TriggerRepository,
    private readonly reader: TriggerReader,
    private readonly firing: TriggerFiring,
    private readonly clock: Clock,
    private readonly leases: WorkLeases,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: MetricsService,
  ) {
    this.clockStep = new ClockStepWatch(clock);
    this.renewal = new BackgroundLoop(
      () => this.renewLeases(),
      leases.renewEveryMs,
      (error) =>
        this.logger.error({ event: 'trigger_lease_renewal_failed', err: error }, 'could not renew leases'),
    );
    this.evaluations = metrics.counter({
      name: 'trigger_evaluations_total',
      help: 'Scheduled trigger evaluations by the state they left',
      labelNames: ['state'],
    });
    this.fires = metrics.counter({
      name: 'trigger_fires_total',
      help: 'Trigger fires by how they came (schedule or fire call) and execution status',
      labelNames: ['kind', 'execution_status'],
    });
    this.skips = metrics.counter({
      name: 'trigger_slots_skipped_total',
      help: 'Scheduled slots not evaluated: missed (too late after downtime) or overlap (previous still running)',
      labelNames: ['reason'],
    });
    this.lateness = metrics.histogram({
      name: 'trigger_evaluation_lateness_seconds',
      help: 'Time from a slot to the start of its evaluation',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // The clock may have stepped back while the daemon was down.
    await this.pullBackFromClockStep();
    this.loop.start();
    this.renewal.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.running.values()]);
    await this.renewal.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  countManualFire(executionStatus: string): void {
    this.fires.inc({ kind: 'manual', execution_status: executionStatus });
  }

  private async fill(): Promise<void> {
    if (this.clockStep.steppedBack()) await this.pullBackFromClockStep();
    while (!this.loop.isStopped && this.running.size < MAX_CONCURRENT) {
      const now = this.clock.now();
      const limit = MAX_CONCURRENT - this.running.size;
      const claimed = await this.triggers.claimDue(now, limit, this.leases.leaseFrom(now));
      const read = this.reader.sharing();
      for (const trigger of claimed) {
        // Our own lease ran out while its evaluation still runs (renewals failed): that evaluation records it.
        if (this.running.has(trigger.id)) continue;
        const evaluation = this.evaluate(trigger, read)
          .catch((error: unknown) => {
            this.logger.error(
              { event: 'trigger_evaluation_failed', trigger_id: trigger.id, err: error },
              'failed',
            );
            return retryWhileStoreUnavailable(
              () => this.triggers.releaseLease(trigger.id, this.leases.owner),
              () => this.loop.isStopped,
              () => undefined,
            ).catch((releaseError: unknown) =>
              this.logger.error(
                { event: 'trigger_lease_release_failed', trigger_id: trigger.id, err: releaseError },
                'could not release the lease; it runs out on its own',
              ),
            );
          })
          .finally(() => {
            this.running.delete(trigger.id);
            this.loop.wakeSoon(CLAIM_LINGER_MS);
          });
        this.running.set(trigger.id, evaluation);
      }
      // Fewer than asked for: nothing else is due now.
      if (claimed.length < limit) return;
    }
  }

  private async pullBackFromClockStep(): Promise<void> {
    const moved = await this.triggers.pullBackFromClockStep(this.clock.now(), this.leases.durationMs);
    if (moved > 0) {
      this.logger.warn(
        { event: 'trigger_slots_pulled_back', triggers: moved },
        'the wall clock stepped back: slots it left ahead are due now',
      );
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.running.size === 0) return;
    await this.triggers.renewLeases(this.leases.leaseFrom(this.clock.now()), [...this.running.keys()]);
  }

  private async evaluate(trigger: Trigger, read: (trigger: Trigger) => Promise<Reading>): Promise<void> {
    const intervalS = trigger.intervalS ?? 0;
    const started = this.clock.now();
    const plan = planSlot(trigger.nextEvaluationAt ?? started, intervalS, trigger.catchUpWindowS, started);
    if (plan.skipped > 0) this.skips.inc({ reason: 'missed' }, plan.skipped);
    if (!plan.slot) {
      await this.record(trigger, {
        changes: { nextEvaluationAt: plan.next, skippedSlots: trigger.skippedSlots + plan.skipped },
      });
      return;
    }
    const slot = plan.slot;
    this.lateness.observe((started.getTime() - slot.getTime()) / 1000);
    const condition = parseCondition(trigger.condition);
    const rules = { forS: condition.for_s, cooldownS: trigger.cooldownS, keepFiringS: trigger.keepFiringS };
    const current = {
      state: trigger.state,
      pendingSince: trigger.pendingSince ?? null,
      recoveringSince: trigger.recoveringSince ?? null,
      lastFiredAt: trigger.lastFiredAt ?? null,
      consecutiveErrors: trigger.consecutiveErrors,
    };
    const reading = await read(trigger);
    let next = transition(current, rules, reading, slot);
    let computed: ComputedFire | undefined;
    if (next.shouldFire && reading.kind === 'value') {
      try {
        const value = reading.value;
        computed = await this.oneOfSimulations(() =>
          this.firing.compute(trigger, value, this.clock.now(), 'scheduled'),
        );
      } catch (error) {
        if (isStoreUnavailable(error)) throw error;
        const failed: Reading = { kind: 'error', message: `simulation failed: ${toAppError(error).message}` };
        next = transition(current, rules, failed, slot);
      }
    }
    const done = this.clock.now();
    const after = nextSlotAfter(plan.next, intervalS, done);
    if (after.skipped > 0) this.skips.inc({ reason: 'overlap' }, after.skipped);
    const outcome = await this.record(trigger, {
      changes: {
        state: next.state,
        pendingSince: next.pendingSince,
        recoveringSince: next.recoveringSince,
        consecutiveErrors: next.consecutiveErrors,
        lastError: next.lastError,
        lastEvaluatedAt: done,
        nextEvaluationAt: after.next,
        skippedSlots: trigger.skippedSlots + plan.skipped + after.skipped,
      },
      ...(computed
        ? { fire: { ...computed.fire, slot: slot.toISOString() }, alsoWrite: computed.alsoWrite }
        : {}),
    });
    this.evaluations.inc({ state: next.state });
    if (outcome === 'recorded' && computed) {
      this.fires.inc({ kind: 'scheduled', execution_status: computed.fire.executionStatus ?? 'none' });
      this.firing.wakeOutbox();
    }
  }

  private async oneOfSimulations<T>(run: () => Promise<T>): Promise<T> {
    while (this.simulating >= MAX_SIMULATIONS) {
      await new Promise<void>((resume) => this.waitingToSimulate.push(resume));
    }
    this.simulating++;
    try {
      return await run();
    } finally {
      this.simulating--;
      this.waitingToSimulate.shift()?.();
    }
  }

  private async record(trigger: Trigger, record: EvaluationRecord): Promise<string> {
    const outcome = await this.triggers.recordEvaluation(
      trigger.id,
      this.leases.owner,
      trigger.generation,
      record,
    );
    if (outcome !== 'recorded') {
      this.logger.info(
        { event: 'trigger_evaluation_discarded', trigger_id: trigger.id, outcome },
        'discarded',
      );
    }
    return outcome;
  }
}
