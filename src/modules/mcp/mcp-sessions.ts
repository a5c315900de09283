import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { Principal } from '../../common/auth/principal';

export type SessionKind = 'streamable_http' | 'sse';

export interface McpSession {
  readonly id: string;
  readonly kind: SessionKind;
  readonly owner: string;
  readonly orgId: string;
  principal: Principal;
  readonly transport: Transport;
  readonly server: Server;
  lastSeenAt: number;
}

interface Claimant {
  readonly owner: string;
  readonly orgId: string;
}

interface Refusal {
  readonly scope: 'credential' | 'organization' | 'appliance';
  readonly limit: number;
  readonly message: string;
  readonly waitMs: number;
}

/** The credential a session is bound to: the API key, else the signed-in user's session token. */
export function sessionOwner(principal: Principal): string {
  if (principal.keyId) return `key:${principal.keyId}`;
  return `user:${principal.userId ?? 'unknown'}:org:${principal.orgId}`;
}

/** Open MCP sessions, bound to their owner and capped per credential, organization and appliance. */
@Injectable()
export class McpSessions implements OnModuleInit, OnApplicationShutdown {
  private readonly sessions = new Map<string, McpSession>();
  private readonly pending = new Map<symbol, Claimant>();
  private reaper: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    const everyMs = Math.max(1000, Math.min(60_000, (this.config.mcpSessionIdleS * 1000) / 4));
    this.reaper = setInterval(() => void this.reapIdle(), everyMs);
    this.reaper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.all([...this.sessions.values()].map((s) => this.close(s.id, 'shutdown')));
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Holds a slot for a session about to open, or throws 503 mcp_session_limit_reached; the slot is held until the
   * session is registered, so concurrent initializes cannot overshoot a limit.
   */
  async reserve(principal: Principal): Promise<() => void> {
    const claimant = { owner: sessionOwner(principal), orgId: principal.orgId };
    if (this.refusal(claimant, principal.isOperatorOrg)) await this.reapIdle();
    const refusal = this.refusal(claimant, principal.isOperatorOrg);
    if (refusal) {
      this.logger.warn(
        { event: 'mcp_session_refused', scope: refusal.scope, org_id: claimant.orgId, limit: refusal.limit },
        'an MCP session was refused: no slot left',
      );
      throw AppError.retryLater('mcp_session_limit_reached', refusal.waitMs, refusal.message);
    }
    const token = Symbol('mcp-slot');
    this.pending.set(token, claimant);
    return () => this.pending.delete(token);
  }

  add(session: Omit<McpSession, 'lastSeenAt' | 'owner' | 'orgId'>): McpSession {
    const stored: McpSession = {
      ...session,
      owner: sessionOwner(session.principal),
      orgId: session.principal.orgId,
      lastSeenAt: Date.now(),
    };
    this.sessions.set(session.id, stored);
    this.logger.info(
      {
        event: 'mcp_session_opened',
        session_id: session.id,
        kind: session.kind,
        org_id: session.principal.orgId,
      },
      'MCP session opened',
    );
    return stored;
  }

  /** The session for a request of `principal`: 404 when unknown or expired, 403 when another credential opened it. */
  claim(id: string, kind: SessionKind, principal: Principal): McpSession {
    const session = this.sessions.get(id);
    if (!session || session.kind !== kind) {
      throw new AppError('not_found', 'The MCP session does not exist or has expired: initialize a new one.');
    }
    if (session.owner !== sessionOwner(principal)) {
      this.logger.warn(
        { event: 'mcp_session_foreign_credential', session_id: id, org_id: principal.orgId },
        'an MCP session was used with a credential that did not open it',
      );
      throw new AppError('forbidden', 'This MCP session belongs to another credential.');
    }
    session.principal = principal;
    session.lastSeenAt = Date.now();
    return session;
  }

  forget(id: string): void {
    if (this.sessions.delete(id)) {
      this.logger.info({ event: 'mcp_session_closed', session_id: id }, 'MCP session closed');
    }
  }

  async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.logger.info({ event: 'mcp_session_closed', session_id: id, reason }, 'MCP session closed');
    try {
      await session.server.close();
    } catch (error) {
      this.logger.debug({ event: 'mcp_session_close_failed', session_id: id, err: error }, 'closing failed');
    }
  }

  private refusal(claimant: Claimant, isOperatorOrg: boolean): Refusal | undefined {
    const held: Claimant[] = [...this.sessions.values(), ...this.pending.values()];
    const { mcpMaxSessions, mcpMaxSessionsPerOrg, mcpMaxSessionsPerKey, mcpOperatorReserve } = this.config;
    // The last slots of the appliance are kept for the operator organization, so tenants cannot lock it out.
    const applianceLimit = isOperatorOrg ? mcpMaxSessions : Math.max(0, mcpMaxSessions - mcpOperatorReserve);
    const scopes: [Refusal['scope'], number, (c: Claimant) => boolean, string][] = [
      ['credential', mcpMaxSessionsPerKey, (c) => c.owner === claimant.owner, 'this credential has'],
      ['organization', mcpMaxSessionsPerOrg, (c) => c.orgId === claimant.orgId, 'your organization has'],
      [
        'appliance',
        applianceLimit,
        () => true,
        isOperatorOrg ? 'the appliance has' : 'the appliance keeps for tenant organizations',
      ],
    ];
    for (const [scope, limit, inScope, who] of scopes) {
      if (held.filter(inScope).length < limit) continue;
      return {
        scope,
        limit,
        message: `All ${limit} MCP sessions ${who} are in use: close one or retry later.`,
        waitMs: this.untilIdleExpiryMs([...this.sessions.values()].filter(inScope)),
      };
    }
    return undefined;
  }

  private untilIdleExpiryMs(sessions: readonly McpSession[]): number {
    if (sessions.length === 0) return 0;
    const oldest = Math.min(...sessions.map((s) => s.lastSeenAt));
    return oldest + this.config.mcpSessionIdleS * 1000 - Date.now();
  }

  private async reapIdle(): Promise<void> {
    const cutoff = Date.now() - this.config.mcpSessionIdleS * 1000;
    const idle = [...this.sessions.values()].filter((s) => s.lastSeenAt < cutoff);
    await Promise.all(idle.map((s) => this.close(s.id, 'idle')));
  }
}
