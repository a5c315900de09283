import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ApiKeysController } from '../../src/modules/api-keys/api-keys.controller';
import { ConnectorsController } from '../../src/modules/connectors/connectors.controller';
import { DatasetsController } from '../../src/modules/datasets/datasets.controller';
import { isIdempotentRoute } from '../../src/modules/idempotency/idempotent.decorator';
import { JobsController } from '../../src/modules/jobs/jobs.controller';
import { TriggersController } from '../../src/modules/triggers/triggers.controller';
import { WebhooksController } from '../../src/modules/webhooks/webhooks.controller';

type Controller = abstract new (...args: never[]) => object;

/** `POST /v1/...` of every route handler of the controllers that @Idempotent() marks. */
function idempotentRoutes(controllers: readonly Controller[]): string[] {
  const routes: string[] = [];
  for (const controller of controllers) {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function' || name === 'constructor' || !isIdempotentRoute(handler)) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
      routes.push(`${method} /${base}${path === '/' ? '' : `/${path}`}`);
    }
  }
  return routes.sort();
}

describe('@Idempotent() routes', () => {
  it('are exactly the POSTs that create things (webhooks/test excluded)', () => {
    expect(
      idempotentRoutes([
        ApiKeysController,
        ConnectorsController,
        DatasetsController,
        JobsController,
        TriggersController,
        WebhooksController,
      ]),
    ).toEqual([
      'POST /v1/api-keys',
      'POST /v1/connectors',
      'POST /v1/data/connect',
      'POST /v1/jobs',
      'POST /v1/triggers',
      'POST /v1/triggers/:id/fire',
    ]);
  });
});
