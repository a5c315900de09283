import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';

@Injectable()
export class AppStateRepository {
  constructor(private readonly em: EntityManager) {}

  async get(key: string): Promise<string | undefined> {
    const rows = await this.em
      .fork()
      .getConnection()
      .execute<{ value: string }[]>('select value from appliance_state where key = ?', [key]);
    return rows[0]?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.em
      .fork()
      .getConnection()
      .execute(
        'insert into appliance_state (key, value, updated_at) values (?, ?, ?) on conflict(key) do update set value = excluded.value, updated_at = excluded.updated_at',
        [key, value, new Date().toISOString()],
      );
  }
}
