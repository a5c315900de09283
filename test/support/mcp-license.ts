import { ENTITLEMENT_SOURCE, EntitlementSource } from '../../src/modules/licensing/entitlements';
import { startTestApp, TestApp } from './test-app';

/**
 * A booted daemon whose license grants every entitlement. Until license verification is on main this swaps the
 * community entitlement answer on the running instance; with licensing merged it becomes a signed test license
 * (test/support/licenses.ts `writeTestLicense`).
 */
export async function startLicensedApp(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp(env);
  const source = t.app.get<EntitlementSource>(ENTITLEMENT_SOURCE);
  source.hasEntitlement = () => true;
  return t;
}
