import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard';
import { DenyAllResolver } from './deny-all.resolver';
import { MeController } from './me.controller';
import { CREDENTIAL_RESOLVER } from './principal';

@Module({
  controllers: [MeController],
  providers: [
    { provide: CREDENTIAL_RESOLVER, useClass: DenyAllResolver },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
})
export class AccessModule {}
