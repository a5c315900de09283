import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { OrganizationsService } from '../accounts/organizations.service';
import { ImportArea, importAreaFor } from './local-path';

export type OperatorCheck = Pick<OrganizationsService, 'isOperatorOrg'>;

@Injectable()
export class ImportAreas {
  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'importDir' | 'importGrants'>,
    @Inject(OrganizationsService) private readonly organizations: OperatorCheck,
  ) {}

  async forOrg(orgId: string): Promise<ImportArea> {
    const isOperator = await this.organizations.isOperatorOrg(orgId);
    return importAreaFor(this.config.importDir, orgId, isOperator, this.config.importGrants);
  }
}
