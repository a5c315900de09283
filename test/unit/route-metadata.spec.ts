import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RouteMetadata } from '../../src/common/http/route-metadata';

const MARK = 'test:mark';
const Mark = (value: string) => SetMetadata(MARK, value);

@Mark('class')
class Marked {
  @Mark('handler')
  own(): void {}
  inherited(): void {}
}

class Unmarked {
  plain(): void {}
}

/** A subclass routes the same handler function under another controller class. */
@Mark('subclass')
class Sub extends Unmarked {}

function contextOf(
  controller: new () => object,
  handler: (...args: never[]) => unknown,
): ExecutionContextHost {
  return new ExecutionContextHost([], controller, handler);
}

describe('RouteMetadata', () => {
  it('prefers the handler over its class, like Reflector.getAllAndOverride, and answers the same when asked again', () => {
    const mark = new RouteMetadata<string>(new Reflector(), MARK);
    for (let i = 0; i < 2; i += 1) {
      expect(mark.of(contextOf(Marked, Marked.prototype.own))).toBe('handler');
      expect(mark.of(contextOf(Marked, Marked.prototype.inherited))).toBe('class');
      expect(mark.of(contextOf(Unmarked, Unmarked.prototype.plain))).toBeUndefined();
    }
  });

  it('keeps one answer per controller when two controllers share a handler function', () => {
    const mark = new RouteMetadata<string>(new Reflector(), MARK);
    expect(Sub.prototype.plain).toBe(Unmarked.prototype.plain);
    expect(mark.of(contextOf(Unmarked, Unmarked.prototype.plain))).toBeUndefined();
    expect(mark.of(contextOf(Sub, Sub.prototype.plain))).toBe('subclass');
    expect(mark.of(contextOf(Unmarked, Unmarked.prototype.plain))).toBeUndefined();
  });
});
