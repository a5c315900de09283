import { Type } from '@nestjs/common';
import { Requirement } from '../../common/auth/authorization';
import { Entitlement } from '../../common/auth/entitlements';
import { Principal } from '../../common/auth/principal';
import { parseWire } from '../../common/validation';

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * One MCP tool: the /v1 endpoint it wraps, the entitlement that makes it visible (none: every edition), what a call
 * requires (checked by common/auth/authorization.ts, as the route guards check the endpoint's decorators), and a
 * handler that calls the same service the HTTP controller calls, with the caller's principal.
 */
export interface ToolDefinition<A extends object> {
  readonly name: string;
  readonly description: string;
  /** `METHOD /path` of the operation it wraps in the contract, whose success answer is the tool's output. */
  readonly endpoint: string;
  /** The output's class (a @ContractComponent) for a tool that wraps no HTTP operation. */
  readonly answers?: Type<object>;
  /** Several: visible only when the license grants every one of them. */
  readonly visibleWith?: Entitlement | readonly Entitlement[];
  readonly requires?: Requirement;
  /** The class of its arguments: checked as the route's body is, its JSON Schema read from the contract. */
  readonly input: Type<A>;
  readonly annotations: ToolAnnotations;
  readonly run: (principal: Principal, args: A) => Promise<Record<string, unknown>>;
}

export interface McpTool extends Omit<ToolDefinition<object>, 'run'> {
  /** The call's arguments checked (AppError validation_failed otherwise), ready to run for a principal. */
  bind(rawArgs: unknown): (principal: Principal) => Promise<Record<string, unknown>>;
}

export function defineTool<A extends object>(tool: ToolDefinition<A>): McpTool {
  const { run, ...definition } = tool;
  return {
    ...definition,
    bind: (rawArgs) => {
      const args = parseWire(tool.input, rawArgs ?? {});
      return (principal) => run(principal, args);
    },
  };
}
