import { Injectable } from '@nestjs/common';

/** The wall clock, injected so that tests can move time instead of waiting for it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
