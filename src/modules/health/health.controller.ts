import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse, ApiOperation } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { StoreHealth } from '../../common/database';
import { AppError } from '../../common/errors';
import { Public } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/openapi';
import { storageStatus } from './disk-space';
import { HealthResponse, ReadinessResponse, toReadinessResponse } from './health.dto';
import { MetricsService } from '../../common/metrics/metrics.service';

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

@Controller()
export class HealthController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly store: StoreHealth,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('v1/health')
  @ApiOkResponse({ type: HealthResponse })
  @ApiOperation({ summary: 'Check liveness', description: 'Public.' })
  health(): HealthResponse {
    return { status: 'ok', timestamp: new Date().toISOString() };
  }

  /**
   * 503 on low disk, so a balancer sees the appliance degrade before writes fail with 507, and while the store cannot
   * take writes.
   */
  @Public()
  @Get('v1/ready')
  @ApiOkResponse({ type: ReadinessResponse, description: 'Ready to serve.' })
  @ApiServiceUnavailableResponse({
    type: ReadinessResponse,
    description: 'Not ready: the disk is nearly full, or the database does not answer or take writes.',
  })
  @ApiOperation({
    summary: 'Check readiness',
    description:
      "Public. 503 while the data directory's file system has less free space than SERVICE_MIN_FREE_DISK_MB, or while the store cannot serve writes.",
  })
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const [storage, store] = await Promise.all([
      storageStatus(this.config.dataDir, this.config.minFreeDiskMb * 1024 * 1024),
      this.store.status(),
    ]);
    const body: ReadinessResponse = toReadinessResponse(storage, store);
    await reply.status(body.status === 'ready' ? 200 : 503).send(body);
  }

  /** Open on loopback by default; SERVICE_METRICS_TOKEN requires `Authorization: Bearer <token>`. */
  @Public()
  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'The Prometheus text exposition format (version 0.0.4).',
    content: {
      'text/plain': {
        schema: { type: 'string', example: '# TYPE http_requests_total counter\nhttp_requests_total 42\n' },
      },
    },
  })
  @ApiErrors('authentication_required', 'invalid_api_key')
  @ApiOperation({
    summary: 'Get Prometheus metrics',
    description:
      'Public unless SERVICE_METRICS_TOKEN is set; then it needs `Authorization: Bearer <that token>`.',
  })
  async prometheus(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const token = this.config.metricsToken;
    if (token !== undefined) {
      const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
      if (presented === undefined) throw new AppError('authentication_required');
      if (!sameSecret(presented, token)) throw new AppError('invalid_api_key', 'The metrics token is wrong.');
    }
    const body = await this.metrics.registry.metrics();
    await reply.header('content-type', this.metrics.registry.contentType).send(body);
  }
}
