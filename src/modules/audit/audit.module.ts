import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { AuditEventSchema } from './audit-event.entity';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({
  imports: [DatabaseModule.forFeature([AuditEventSchema])],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
