import { AppError } from '../../src/common/errors';

/** The AppError a promise rejects with; anything else (or fulfilment) fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}
