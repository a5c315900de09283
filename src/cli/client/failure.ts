import { CommanderError } from 'commander';
import { ConfigError } from '../../common/config';
import { CliFailure, ExitCode, type ExitStatus } from './exit-codes';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  DeviceBindingError,
  EngineUnavailableError,
  JobWaitTimeoutError,
  PermissionDeniedError,
  RateLimitError,
} from './sdk';

export function describeFailure(error: unknown): { message: string | undefined; exitCode: ExitStatus } {
  if (error instanceof CommanderError) {
    // Commander has already printed the problem (and help) itself.
    const shown = ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code);
    return { message: undefined, exitCode: shown ? ExitCode.ok : ExitCode.usage };
  }
  if (error instanceof CliFailure) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof ConfigError) return { message: error.message, exitCode: ExitCode.configuration };
  if (error instanceof JobWaitTimeoutError) return { message: error.message, exitCode: ExitCode.retryLater };
  if (error instanceof APIError) return { message: describeApiError(error), exitCode: exitCodeOf(error) };
  return { message: error instanceof Error ? error.message : String(error), exitCode: ExitCode.failure };
}

function exitCodeOf(error: APIError): ExitStatus {
  if (error instanceof APIConnectionError) return ExitCode.unreachable;
  if (error instanceof AuthenticationError) return ExitCode.authentication;
  if (error instanceof PermissionDeniedError || error instanceof DeviceBindingError)
    return ExitCode.permission;
  if (error instanceof RateLimitError || error instanceof EngineUnavailableError) return ExitCode.retryLater;
  if (error.status === 400 || error.status === 422) return ExitCode.usage;
  return ExitCode.failure;
}

function describeApiError(error: APIError): string {
  if (error instanceof APIConnectionError) {
    return `the service did not answer (${error.message}); is decisiond running, and is the base URL right?`;
  }
  const details = Array.isArray(error.details)
    ? (error.details as { field?: unknown; problem?: unknown }[])
        .map((d) => `\n  ${String(d.field)}: ${String(d.problem)}`)
        .join('')
    : '';
  const retry =
    error instanceof RateLimitError || error instanceof EngineUnavailableError
      ? error.retryAfterSeconds === undefined
        ? ''
        : ` (retry after ${Math.ceil(error.retryAfterSeconds)} s)`
      : '';
  const request = error.requestId ? `, request ${error.requestId}` : '';
  return `${error.message}${retry} [${error.code}${request}]${details}`;
}
