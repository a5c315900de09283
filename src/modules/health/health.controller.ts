import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { Public } from '../access/access.decorators';
import { MetricsService } from './metrics.service';

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

@Controller()
export class HealthController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('v1/health')
  health(): { status: 'ok'; timestamp: string } {
    return { status: 'ok', timestamp: new Date().toISOString() };
  }

  /** Open on loopback by default; SERVICE_METRICS_TOKEN requires `Authorization: Bearer <token>`. */
  @Public()
  @Get('metrics')
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
