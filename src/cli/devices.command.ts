import { Command } from 'commander';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';

export function registerDevicesCommands(program: Command): void {
  const devices = program.command('devices').description('list devices and free device slots');
  withFormat(devices.command('list').description('devices registered under the organization')).action(
    async (options: FormatOptions) => {
      const { client } = await connect();
      const page = await client.devices.list();
      printResult(options.format, page, {
        rows: page.devices,
        columns: ['registration_id', 'device_id', 'key_id', 'platform', 'registered_at', 'last_seen_at'],
        empty: 'no devices',
      });
    },
  );
  withFormat(
    devices
      .command('revoke')
      .description("free a device's slot; its binding token stops working")
      .argument('<registration_id>', 'from devices list (dev_…)'),
  ).action(async (registrationId: string, options: FormatOptions) => {
    const { client } = await connect();
    printResult(options.format, await client.devices.revoke(registrationId));
  });
}
