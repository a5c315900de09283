import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** Read once per route: metadata is fixed once classes are defined, and global guards ask on every request. */
export class RouteMetadata<T> {
  private readonly byHandler = new WeakMap<object, Map<object, T | undefined>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly key: string,
  ) {}

  of(context: ExecutionContext): T | undefined {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = this.byHandler.get(handler);
    if (!byController) {
      byController = new Map();
      this.byHandler.set(handler, byController);
    }
    if (byController.has(controller)) return byController.get(controller);
    const value = this.reflector.getAllAndOverride<T | undefined>(this.key, [handler, controller]);
    byController.set(controller, value);
    return value;
  }
}
