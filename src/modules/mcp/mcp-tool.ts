import { z } from 'zod';
import { Requirement } from '../../common/auth/authorization';
import { Entitlement } from '../../common/auth/entitlements';
import { Principal } from '../../common/auth/principal';

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
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly endpoint: string;
  readonly visibleWith?: Entitlement;
  readonly requires?: Requirement;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: ToolAnnotations;
  run(principal: Principal, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}
