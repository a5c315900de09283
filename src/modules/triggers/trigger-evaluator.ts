import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { toAppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { MetricsService } from '../../common/metrics/metrics.service';
import { Trigger } from './trigger.entity';
import { parseCondition } from './trigger-definition';
import { nextSlotAfter, planSlot, Reading, transition } from './trigger-evaluation';
import { ComputedFire, TriggerFiring } from './trigger-firing';
import { TriggerReader } from './trigger-reader';
import { EvaluationRecord, TriggerRepository } from './trigger.repository';

const TICK_MS = 1000;
const MAX_CONCURRENT = 8;

/**
 * Evaluates due triggers on their schedule. Each evaluation is claimed under a lease in the table (not a timer in
 * this process), so a restart resumes every trigger from its persisted state and several daemons can share the work.
 */
@Injectable()
export class TriggerEvaluator implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Set<Promise<void>>();
  private readonly loop = new BackgroundLoop(
    () => this.fill(),
    TICK_MS,
    (error) => this.logger.error({ event: 'trigger_claim_failed', err: error }, 'could not claim triggers'),
  );
  private readonly evaluations;
  private readonly fires;
  private readonly skips;
  private readonly lateness;

  constructor(
    private readonly triggers: TriggerRepository,
    private readonly reader: TriggerReader,
    private readonly firing: TriggerFiring,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: MetricsService,
  ) {
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

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.running]);
  }

  wake(): void {
    this.loop.wake();
  }

  countManualFire(executionStatus: string): void {
    this.fires.inc({ kind: 'manual', execution_status: executionStatus });
  }

  /** Longer than a query plus a simulation can take, so a live evaluation never loses its claim. */
  private get leaseMs(): number {
    return Math.max(60_000, this.config.engineComputeTimeoutS * 1000 + 30_000);
  }

  private async fill(): Promise<void> {
    const room = MAX_CONCURRENT - this.running.size;
    if (this.loop.isStopped || room <= 0) return;
    const claimed = await this.triggers.claimDue(this.clock.now(), this.owner, this.leaseMs, room);
    for (const trigger of claimed) {
      const evaluation = this.evaluate(trigger)
        .catch((error: unknown) => {
          this.logger.error(
            { event: 'trigger_evaluation_failed', trigger_id: trigger.id, err: error },
            'failed',
          );
          return this.triggers.releaseLease(trigger.id, this.owner);
        })
        .finally(() => {
          this.running.delete(evaluation);
          this.wake();
        });
      this.running.add(evaluation);
    }
  }

  private async evaluate(trigger: Trigger): Promise<void> {
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
    const reading = await this.reader.read(trigger);
    let next = transition(current, rules, reading, slot);
    let computed: ComputedFire | undefined;
    if (next.shouldFire && reading.kind === 'value') {
      try {
        computed = await this.firing.compute(trigger, reading.value, this.clock.now());
      } catch (error) {
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

  private async record(trigger: Trigger, record: EvaluationRecord): Promise<string> {
    const outcome = await this.triggers.recordEvaluation(trigger.id, this.owner, trigger.generation, record);
    if (outcome !== 'recorded') {
      this.logger.info(
        { event: 'trigger_evaluation_discarded', trigger_id: trigger.id, outcome },
        'discarded',
      );
    }
    return outcome;
  }
}
