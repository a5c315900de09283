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

/** One MCP tool: the /v1 endpoint it wraps, its visibility, requirements, and a handler calling the same service. */
export interface ToolDefinition<A extends object> {
  readonly name: string;
  readonly description: string;
  /** `METHOD /path` of the operation it wraps in the contract, whose success answer is the tool's output. */
  readonly endpoint: string;
  readonly answers?: Type<object>;
  /** Several: visible only when the license grants every one of them. */
  readonly visibleWith?: Entitlement | readonly Entitlement[];
  readonly requires?: Requirement;
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
