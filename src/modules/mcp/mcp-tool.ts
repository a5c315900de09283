import { z } from 'zod';
import { Principal } from '../../common/auth/principal';
import { Entitlement } from '../../common/auth/entitlements';

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * One MCP tool: the /v1 endpoint it wraps, the entitlement that makes it visible (none: every edition), and a
 * handler that calls the same service the HTTP controller calls, with the caller's principal.
 */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly endpoint: string;
  readonly visibleWith?: Entitlement;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: ToolAnnotations;
  run(principal: Principal, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}
