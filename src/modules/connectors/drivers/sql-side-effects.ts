import { ConnectorError } from '../connector-error';

export type SideEffectDialect = 'postgres' | 'mysql';

/** Functions a read-only transaction does not stop: server files (`lo_import`), SQL as text (`dblink`), admin acts. */
const REFUSED_WORDS: Record<SideEffectDialect, RegExp> = {
  postgres:
    /^(lo_\w+|loread|lowrite|pg_read_\w+|pg_ls_\w+|pg_stat_file|pg_file_\w+|pg_logdir_ls|dblink\w*|query_to_xml\w*|cursor_to_xml\w*|ts_stat|ts_rewrite|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile\w*|pg_switch_wal|pg_promote|pg_notify)$/i,
  mysql: /^(outfile|dumpfile|load_file|sys_exec|sys_eval)$/i,
};

/** How a query may begin; `SET GLOBAL`, `CALL`, `DO`, `LOAD DATA` and the like are not reads. */
const FIRST_WORDS: Record<SideEffectDialect, RegExp> = {
  postgres: /^(select|with|values|table)$/i,
  mysql: /^(select|with|values|table|show|describe|desc|explain)$/i,
};

/** Leading blanks and comments, except MySQL's executable `/*! … *\/` comments, which are code. */
const LEADING_COMMENTS = /^(?:\s+|--[^\n\r]*|#[^\n\r]*|\/\*(?![!M])[\s\S]*?\*\/)*/;

const REFUSAL =
  'Only plain read queries are allowed: this one names a function or clause that writes files, runs other ' +
  'SQL or acts on the database server';

/**
 * Refuses a side effect a read-only transaction lets through (`SELECT … INTO OUTFILE`, `lo_import`). Every word
 * counts, inside quotes and comments too (a wrong refusal is cheaper than a mis-parse); Unicode escapes are refused.
 */
export function refuseSideEffects(sql: string, dialect: SideEffectDialect): void {
  const words = sql.match(/[\p{L}\p{N}_$]+/gu) ?? [];
  const refused = words.find((word) => REFUSED_WORDS[dialect].test(word));
  if (refused !== undefined) {
    throw new ConnectorError('invalid_config', `${REFUSAL} (${refused.slice(0, 64)}).`);
  }
  if (dialect === 'postgres' && /\bu&\s*["']/i.test(sql)) {
    throw new ConnectorError('invalid_config', `${REFUSAL} (a Unicode-escaped name or string).`);
  }
  const body = sql.replace(LEADING_COMMENTS, '');
  const first = /^[\p{L}_]+/u.exec(body)?.[0] ?? '';
  if (!FIRST_WORDS[dialect].test(first) && !body.startsWith('(')) {
    throw new ConnectorError(
      'invalid_config',
      `Only read queries are allowed; a query starts with ${dialect === 'postgres' ? 'SELECT, WITH, VALUES or TABLE' : 'SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE or EXPLAIN'}.`,
    );
  }
}
